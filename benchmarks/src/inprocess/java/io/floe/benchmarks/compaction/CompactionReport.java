package io.floe.benchmarks.compaction;

import io.floe.maintenance.MaintenanceConfig;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The Markdown report of one run: settings, the cost of compaction, the read passes and the check. Pure. */
final class CompactionReport {

    private static final double MIB = 1024.0 * 1024.0;

    private final CompactionOptions options;
    private final MaintenanceConfig config;
    private final long inFlightBytesMax;
    private final Measurements m;

    CompactionReport(CompactionOptions options, MaintenanceConfig config, long inFlightBytesMax,
            Measurements measurements) {
        this.options = options;
        this.config = config;
        this.inFlightBytesMax = inFlightBytesMax;
        this.m = measurements;
    }

    String markdown(String date, String command, String machine, String load) {
        StringBuilder out = new StringBuilder();
        out.append("### Compaction run (").append(date).append(")\n\n");
        settings(out, command, machine, load);
        out.append("\n#### Cost of compaction\n\n");
        cost(out);
        out.append(options.compactsWhileProducing() ? "\n#### Read-all throughput, compacted\n\n"
                : "\n#### Read-all throughput, uncompacted vs compacted\n\n");
        reads(out);
        out.append("\n#### Check: the same records before and after\n\n");
        check(out);
        return out.toString();
    }

    private void settings(StringBuilder out, String command, String machine, String load) {
        line(out, "- Machine: %s; %s.", machine, load);
        line(out, "- Workload: %,d records of %,d-byte values (no key, no compression) in batches of %,d records, "
                + "%d partitions, batch i to partition i mod %d, through `agent.produce().append(...)`, at most "
                + "%,d bytes of appends awaiting their commit (the agent's uploads in flight times the flush size).",
                options.records(), options.valueBytes(), options.batchRecords(), options.partitions(),
                options.partitions(), inFlightBytesMax);
        line(out, "- Agent: in-process, flushes every %d ms or at %,d bytes (many small objects, each holding "
                + "batches of every partition), object cache 0 (every fetch reads the object store), SQLite "
                + "metadata and a local-directory object store in a temp dir. The page cache is warm: the objects "
                + "were just written, so an object-store read here is a file read from memory, not a network "
                + "round trip.", options.flushInterval().toMillis(), options.flushBytes());
        String when = options.compactsWhileProducing()
                ? String.format(Locale.ROOT, "after every %,d records produced (as the job, every interval, while "
                        + "producers write) and after the last", options.compactEveryRecords())
                : "once, after the last record was committed and read";
        line(out, "- Compaction: %s. Each time, `SegmentCompaction` rounds back to back until one finds nothing to "
                + "do (target %s, inputs below %s, at most %s of inputs per round, no minimum age), then "
                + "`ObjectCleanup` at now + the delete delay (%d s) + 1 s, which deletes the inputs.", when,
                size(config.compactionTargetBytes()), size(config.compactionSmallObjectBytes()),
                size(config.compactionRunBytesMax()), config.objectDeleteDelay().toSeconds());
        line(out, "- Read-all: every partition from its log start to its high watermark through `FetchService`, "
                + "one fetch at a time, all unfinished partitions in each, %d MiB per partition, no wait. Each "
                + "layout is read %d times: the first pass of each warms up (the JIT, the objects' pages), and the "
                + "ratio compares the fastest of the others, as other processes on a busy machine slow single "
                + "passes down.", ReadAll.PARTITION_FETCH_BYTES >> 20, options.readPasses());
        line(out, "- Command: `%s`", command);
    }

    private void cost(StringBuilder out) {
        CompactionRun c = m.compaction();
        out.append("| | value |\n|---|---:|\n");
        row(out, "ingested: objects the agent uploaded", count(m.ingestedObjects()));
        row(out, "ingested: their bytes (committed object bytes)", bytes(m.ingestedBytes()));
        row(out, "produce time (context, not a produce benchmark)", seconds(m.produceNanos() / 1e9));
        row(out, options.compactsWhileProducing() ? "committed objects when the last record was committed"
                : "committed objects before compaction", count(m.before().committedObjects()));
        if (options.compactsWhileProducing()) {
            row(out, "compaction sessions", count(c.sessions()));
        }
        row(out, "compaction rounds with work", count(c.rounds()));
        row(out, "compaction wall time", seconds(c.seconds()));
        row(out, "compaction bytes read", bytes(c.bytesRead()));
        if (c.idleBytesRead() > 0) {
            row(out, "of which by rounds that then found nothing to do", bytes(c.idleBytesRead()));
        }
        row(out, "compaction bytes written", bytes(c.bytesWritten()));
        row(out, "read amplification (read / ingested)", fixed(m.readAmplification(), 2));
        row(out, "write amplification (written / ingested)", fixed(m.writeAmplification(), 2));
        row(out, "compaction speed (bytes read / wall time)", fixed(c.bytesRead() / MIB / c.seconds(), 1) + " MB/s");
        row(out, "outputs swapped in / failed swaps / inputs released",
                count(c.swapsRewritten()) + " / " + count(c.swapsFailed()) + " / " + count(c.inputsReleased()));
        row(out, "cleanup: rounds / objects deleted / wall time", count(c.cleanupRounds()) + " / "
                + count(c.objectsDeleted()) + " / " + seconds(c.cleanupNanos() / 1e9));
        row(out, "after: committed objects / bytes", count(m.after().committedObjects()) + " / "
                + bytes(m.after().committedBytes()));
        row(out, "after: objects in the object store", count(m.after().storedObjects()));
    }

    private void reads(StringBuilder out) {
        out.append("| layout, pass | fetches | object-store GETs | GET MiB | fetch s | MB/s | records/s | fetch CPU s "
                + "| pass s |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ReadPass pass : m.passes()) {
            out.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %.1f | %.2f | %.1f | %,.0f | %.2f | %.2f |%n",
                    pass.label(), pass.fetches(), pass.objectGets(), pass.objectGetBytes() / MIB,
                    pass.fetchSeconds(), pass.megabytesPerSecond(), pass.recordsPerSecond(), pass.fetchCpuSeconds(),
                    pass.wallSeconds()));
        }
        if (!m.uncompacted().isEmpty()) {
            ratios(out, fastest(m.uncompacted()), fastest(m.compacted()));
        }
        out.append("\nMB/s and records/s are over the time spent waiting for `FetchService` (fetch s), MB = 2^20 "
                + "bytes of record batches; fetch CPU s is the CPU time (user + system) of the agent's fetch threads "
                + "meanwhile, which other processes on the machine hardly change; pass s adds the driver's decoding "
                + "and checksumming of every record. GETs are the agent's object-store requests "
                + "(`floe.objectstore.requests{kind=GET}`).\n");
        long replans = m.passes().stream().mapToLong(ReadPass::replans).sum();
        if (replans > 0) {
            line(out, "\n%d fetches were planned again because an object had moved.", replans);
        }
    }

    private static void ratios(StringBuilder out, ReadPass before, ReadPass after) {
        out.append(String.format(Locale.ROOT, "| compacted / uncompacted (%s vs %s) | %.2f | %.3f | | %.2f | %.2f "
                        + "| %.2f | %.2f | %.2f |%n", passName(after), passName(before),
                ratio(after.fetches(), before.fetches()), ratio(after.objectGets(), before.objectGets()),
                ratio(after.fetchNanos(), before.fetchNanos()),
                after.megabytesPerSecond() / before.megabytesPerSecond(),
                after.recordsPerSecond() / before.recordsPerSecond(),
                ratio(after.fetchCpuNanos(), before.fetchCpuNanos()), ratio(after.wallNanos(), before.wallNanos())));
    }

    private void check(StringBuilder out) {
        out.append("| partition | records | offsets | CRC32C of offsets and values |\n|---:|---:|---|---|\n");
        List<PartitionDigest> digests = m.passes().get(0).digests();
        for (int p = 0; p < digests.size(); p++) {
            PartitionDigest d = digests.get(p);
            out.append(String.format(Locale.ROOT, "| %d | %,d | %d–%d | %s |%n", p, d.records(), d.firstOffset(),
                    d.lastOffset(), d.crcHex()));
        }
        List<String> problems = m.mismatches(options.records());
        out.append('\n');
        if (problems.isEmpty()) {
            line(out, "Check passed: all %d passes read the same %,d records (per partition: count, first and last "
                    + "offset, CRC32C), as many as were produced.", m.passes().size(), options.records());
        } else {
            out.append("Check FAILED:\n");
            problems.forEach(problem -> out.append("- ").append(problem).append('\n'));
        }
    }

    /** The pass with the least fetch time, the first (warm-up) pass left out when there are others. */
    static ReadPass fastest(List<ReadPass> passes) {
        List<ReadPass> warm = passes.size() > 1 ? passes.subList(1, passes.size()) : passes;
        return warm.stream().min(Comparator.comparingLong(ReadPass::fetchNanos)).orElseThrow();
    }

    private static String passName(ReadPass pass) {
        return pass.label().substring(pass.label().indexOf(", ") + 2);
    }

    private static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }

    private static void row(StringBuilder out, String name, String value) {
        out.append("| ").append(name).append(" | ").append(value).append(" |\n");
    }

    private static void line(StringBuilder out, String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args)).append('\n');
    }

    private static String bytes(long bytes) {
        return String.format(Locale.ROOT, "%,d (%.1f MiB)", bytes, bytes / MIB);
    }

    private static String size(long bytes) {
        return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : String.format(Locale.ROOT, "%,d bytes", bytes);
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.2f s", s);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
