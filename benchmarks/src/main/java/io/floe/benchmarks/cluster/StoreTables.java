package io.floe.benchmarks.cluster;

import static io.floe.benchmarks.cluster.ClusterReport.CLEANUP_DELETED;
import static io.floe.benchmarks.cluster.ClusterReport.COMPACTION_READ;
import static io.floe.benchmarks.cluster.ClusterReport.COMPACTION_SWAPS;
import static io.floe.benchmarks.cluster.ClusterReport.COMPACTION_WRITTEN;
import static io.floe.benchmarks.cluster.ClusterReport.FLUSHES;
import static io.floe.benchmarks.cluster.ClusterReport.OFFSET_COMMITS;
import static io.floe.benchmarks.cluster.ClusterReport.f0;
import static io.floe.benchmarks.cluster.ClusterReport.f1;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The report's tables about the two stores, phase by phase: the object-store requests S3Proxy served and the
 * metadata store's transactions and statements. Part of {@link ClusterReport}.
 */
final class StoreTables {

    static final int STATEMENTS_SHOWN = 10;
    static final int STATEMENT_CHARS = 110;
    private static final double MIB = 1024.0 * 1024;

    private StoreTables() {}

    /** Requests S3Proxy served per phase by operation, with compaction's and cleanup's own counters. */
    static void objectStore(StringBuilder md, List<Phase> phases) {
        if (phases.isEmpty()) {
            return;
        }
        md.append("#### Object-store requests S3Proxy served, by phase (count, mean ms to serve)\n\n| operation |");
        phases.forEach(p -> md.append(" ")
                .append(p.name())
                .append(" (")
                .append(f0(p.seconds()))
                .append(" s) |"));
        md.append("\n|---|").append("---:|".repeat(phases.size())).append("\n");
        for (String operation : phases.get(phases.size() - 1).s3Operations()) {
            md.append("| ").append(operation).append(" |");
            phases.forEach(p -> md.append(" ")
                    .append(f0(p.s3(operation)))
                    .append(p.s3(operation) == 0 ? "" : ", " + f0(p.s3MeanSeconds(operation) * 1000) + " ms")
                    .append(" |"));
            md.append("\n");
        }
        md.append("| compaction: objects written / MiB written / MiB read (agents' counters) |");
        phases.forEach(p -> md.append(" ")
                .append(f0(p.agents(COMPACTION_SWAPS, Map.of())))
                .append(" / ")
                .append(f1(p.agents(COMPACTION_WRITTEN, Map.of()) / MIB))
                .append(" / ")
                .append(f1(p.agents(COMPACTION_READ, Map.of()) / MIB))
                .append(" |"));
        md.append("\n| cleanup: objects deleted |");
        phases.forEach(p ->
                md.append(" ").append(f0(p.agents(CLEANUP_DELETED, Map.of()))).append(" |"));
        md.append("\n\nS3Proxy counts every request it answered (its `http_server_request_duration_seconds_count` by "
                + "`s3_operation`), whoever sent it: the agents' produce and fetch paths, which the agents meter "
                + "themselves, and their maintenance jobs (compaction, cleanup), which they do not.\n\n");
    }

    /**
     * PostgreSQL's transactions per phase, the agents' commits beside them, and the statements behind them;
     * {@code producingRate} is the produce phase's rate over the producers' active time.
     */
    static void metadata(StringBuilder md, List<Phase> phases, Optional<Double> producingRate) {
        if (phases.isEmpty()) {
            return;
        }
        md.append("#### Metadata store: PostgreSQL transactions of database `floe` (`pg_stat_database`)\n\n");
        md.append("| phase | seconds | commits | rollbacks | commits/s | agents' produce commits (flushes) | group "
                + "offset commits |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (Phase p : phases) {
            PostgresServer.TransactionCounts tx = p.transactions();
            md.append("| ")
                    .append(p.name())
                    .append(" | ")
                    .append(f1(p.seconds()))
                    .append(" | ")
                    .append(f0(tx.commits()))
                    .append(" | ")
                    .append(f0(tx.rollbacks()))
                    .append(" | ")
                    .append(f1(tx.commits() / p.seconds()))
                    .append(" | ")
                    .append(f0(p.agents(FLUSHES, Map.of("outcome", "committed"))))
                    .append(" | ")
                    .append(f0(p.agents(OFFSET_COMMITS, Map.of())))
                    .append(" |\n");
        }
        producingRate.ifPresent(
                rate -> md.append("\nDuring producing (the idle rate subtracted for the rest of the "
                                + "produce phase's window): ")
                        .append(f1(rate))
                        .append(
                                " commits/s. PostgreSQL "
                                        + "counts every transaction, reads included: commits of flushes, key registrations, heartbeats "
                                        + "(one per agent per second), the agents' reads of other agents' commits, group coordination.\n"));
        md.append("\n");
        for (Phase phase : phases) {
            statements(md, phase);
        }
    }

    /** The statements PostgreSQL ran most often in a phase (pg_stat_statements), with their rate. */
    private static void statements(StringBuilder md, Phase phase) {
        List<Map.Entry<String, Long>> statements = phase.statements();
        if (statements.isEmpty()) {
            return;
        }
        long total = statements.stream().mapToLong(Map.Entry::getValue).sum();
        md.append("Statements in the ")
                .append(phase.name())
                .append(" phase (`pg_stat_statements`, ")
                .append(f0(total))
                .append(" in all):\n\n| calls | per s | statement |\n|---:|---:|---|\n");
        for (Map.Entry<String, Long> statement : statements.subList(0, Math.min(STATEMENTS_SHOWN, statements.size()))) {
            md.append("| ")
                    .append(f0(statement.getValue()))
                    .append(" | ")
                    .append(f1(statement.getValue() / phase.seconds()))
                    .append(" | `")
                    .append(abbreviate(statement.getKey()))
                    .append("` |\n");
        }
        md.append("\n");
    }

    /** A statement on one line, at most {@link #STATEMENT_CHARS} characters, safe in a Markdown table cell. */
    static String abbreviate(String sql) {
        String line = sql.replaceAll("\\s+", " ").strip().replace("|", "\\|").replace("`", "'");
        return line.length() <= STATEMENT_CHARS ? line : line.substring(0, STATEMENT_CHARS - 1) + "…";
    }
}
