package io.floe.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterReportTest {

    private static final long SECOND = 1_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void reportsTheTargetsFromTheProducePhaseAndSubtractsTheIdleRate() throws Exception {
        ClusterOptions options = ClusterOptions.parse(new String[] {
            "--driver-classpath",
            "d",
            "--s3proxy-classpath",
            "s",
            "--floe-script",
            Files.writeString(dir.resolve("floe"), "").toString(),
            "--records",
            "1000"
        });
        Snapshot start = snapshot(0, 0, agent(0, 0, 0, 0), agent(0, 0, 0, 0), Map.of(), 100);
        Snapshot idleEnd = snapshot(10, 1.0, agent(0, 0, 0, 0), agent(0, 0, 0, 0), Map.of(), 150);
        // 22 s between snapshots, of which the producers ran 20 s: agent 1 made 40 PUTs, agent 2 made 100.
        Snapshot produceEnd = snapshot(
                32, 1.0, agent(40, 0, 95, 0), agent(100, 0, 0, 5), Map.of("PutObject", 140.0), 150 + 10 + 2 * 5);
        Phase idle = Phase.between("idle", start, idleEnd, List.of());
        Phase produce = Phase.between("produce", idleEnd, produceEnd, List.of(0.5, 3.0));
        LatencyHistogram latency = new LatencyHistogram();
        latency.record(300);
        Tools.Produced produced = new Tools.Produced(1000, 1000L * 1024 * 1024, 0, 0, 20_000, latency, List.of());
        ClusterRun run = new ClusterRun(
                "2026-11-30T00:00:00Z",
                1.0,
                Map.of(1, 5, 2, 7),
                Optional.of(idle),
                Optional.of(produce),
                Optional.empty(),
                Optional.empty(),
                Optional.of(produced),
                Optional.of(new Tools.Tailed(1000, 1000L * 1024 * 1024, 0, 20_000, latency, Optional.empty())),
                Optional.empty(),
                Optional.empty(),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of());
        ClusterReport report = new ClusterReport(options, run);

        String md = report.markdown("run-cluster.sh", "test machine");

        assertThat(report.putsPerSecond(produce, 0)).isEqualTo(2.0);
        assertThat(report.putsPerSecond(produce, 1)).isEqualTo(5.0);
        assertThat(md).contains("**not met** (highest agent 5.00 PUT/s");
        assertThat(ClusterReport.cacheFraction(produce)).isEqualTo(0.95);
        assertThat(md).contains("**met** (95.0% of fetch reads)");
        // 20 commits in 22 s, of which 2 s at the idle rate of 5/s: (20 - 10) / 20 s.
        assertThat(report.activeTransactionRate(produce)).isEqualTo(0.5);
        assertThat(md).contains("| PutObject | 0 | 140, 10 ms |");
        assertThat(md).contains("| 300 / 300 / 300 / 300 / 300 ms |");
        assertThat(md).contains("load average 1.0 at the start, 0.5–3.0 during produce");
        assertThat(md)
                .contains("| 20 | 0.9 | `COMMIT` |")
                .contains("| 10 | 0.5 | `SELECT high_watermark FROM " + "partitions WHERE id = $1` |");
        assertThat(StoreTables.abbreviate("a | b `c`" + "x".repeat(200)))
                .hasSize(StoreTables.STATEMENT_CHARS)
                .startsWith("a \\| b 'c'")
                .endsWith("…");
    }

    private static Exposition agent(double puts, double gets, double cacheReads, double storeReads) {
        return Exposition.parse("""
                floe_objectstore_requests_seconds_count{kind="PUT"} %s
                floe_objectstore_requests_seconds_count{kind="GET"} %s
                floe_fetch_reads_total{source="cache"} %s
                floe_fetch_reads_total{source="object-store"} %s
                """.formatted(puts, gets, cacheReads, storeReads));
    }

    private static Snapshot snapshot(
            long seconds, double load, Exposition a, Exposition b, Map<String, Double> s3, long commits) {
        return new Snapshot(
                seconds * SECOND,
                seconds * 1000,
                load,
                List.of(a, b),
                new S3Server.Requests(s3, Map.of("PutObject", s3.getOrDefault("PutObject", 0.0) * 0.01)),
                new PostgresServer.TransactionCounts(commits, 0),
                Map.of("COMMIT", commits, "SELECT high_watermark\n  FROM partitions WHERE id = $1", commits / 2));
    }
}
