package io.floe.benchmarks.tableflow;

import io.floe.core.topic.Topic;
import io.floe.tableflow.delta.DeltaMetrics;
import io.floe.tableflow.delta.DeltaMirror;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The extra cost of the Delta log per commit, measured on the commit it follows: a table of {@code keys} rows
 * (each key once) gets records at {@code rate} per second, keys drawn from the same key space, with a commit
 * interval of {@code commitIntervalMs}; its topic has Delta publishing off, and after each Iceberg commit the
 * driver's own thread runs {@link DeltaMirror#sync} on the table as the Tableflow thread would, timing it by its
 * thread CPU and counting its object-store requests. Beside each sync: the Tableflow thread's CPU and requests
 * since the previous commit (the Iceberg round: reading batches, writing Parquet and deletion vectors,
 * committing), so the two are compared on the same commits.
 */
final class DeltaCost {

    /** One Iceberg commit and the Delta sync that followed it. */
    record Sync(
            int commit,
            String operation,
            String dataFiles,
            String deleteFiles,
            double cpuMs,
            double wallMs,
            CountingObjectStore.Requests delta,
            double roundCpuMs,
            CountingObjectStore.Requests round,
            DeltaMirror.Outcome outcome) {

        boolean checkpoint() {
            return delta.checkpointPuts() > 0;
        }

        String line(String mode) {
            return String.format(Locale.ROOT, "delta sync mode=%s commit=%d op=%s dataFiles=%s deleteFiles=%s"
                            + " outcome=%s cpuMs=%.1f wallMs=%.1f puts=%d gets=%d lists=%d putKB=%.1f getKB=%.1f"
                            + " checkpoint=%s | iceberg round cpuMs=%.1f puts=%d gets=%d lists=%d",
                    mode, commit, operation, dataFiles, deleteFiles, outcome, cpuMs, wallMs, delta.puts(),
                    delta.gets(), delta.lists(), delta.putBytes() / 1024.0, delta.getBytes() / 1024.0,
                    checkpoint(), roundCpuMs, round.puts(), round.gets(), round.lists());
        }
    }

    /** What one mode's run measured. */
    record Result(String mode, long keys, double rate, long commitIntervalMs, Sync initial, List<Sync> syncs,
            int deltaLogFiles, long deltaLogBytes, double load) {}

    private static final long POLL_MILLIS = 100;

    private DeltaCost() {}

    static Result run(String mode, int partitions, long keys, double rate, long commitIntervalMs, int commits)
            throws Exception {
        try (InProcessFloe floe = InProcessFloe.start()) {
            String name = "delta-cost-" + mode;
            Topic topic = floe.createTopic(name, partitions, new Variant(mode, false).configs(commitIntervalMs));
            floe.produce(topic, 0, keys, EventRecords::keyOf);
            floe.awaitMaterialized(name, keys);
            Thread tableflow = Cpu.tableflowThread();
            DeltaMirror mirror = new DeltaMirror(new DeltaMetrics(new SimpleMeterRegistry(), name), Clock.systemUTC());
            Probe probe = new Probe(floe, tableflow, mirror, name);
            Sync initial = probe.sync(0, floe.tables().load(name).orElseThrow());
            System.out.println(initial.line(mode) + " (the first publish of the loaded table)");
            List<Sync> syncs = new ArrayList<>();
            long produced = 0;
            long start = System.nanoTime();
            long lastSnapshot = floe.tables().load(name).orElseThrow().currentSnapshot().snapshotId();
            while (syncs.size() < commits) {
                long due = (long) ((System.nanoTime() - start) / 1e9 * rate);
                if (due > produced) {
                    floe.produce(topic, keys + produced, due - produced, id -> EventRecords.key(id, keys));
                    produced = due;
                }
                Table table = floe.tables().load(name).orElseThrow();
                if (table.currentSnapshot().snapshotId() != lastSnapshot) {
                    lastSnapshot = table.currentSnapshot().snapshotId();
                    Sync sync = probe.sync(syncs.size() + 1, table);
                    syncs.add(sync);
                    System.out.println(sync.line(mode));
                }
                Thread.sleep(POLL_MILLIS);
            }
            long[] log = deltaLog(floe.dir());
            return new Result(mode, keys, rate, commitIntervalMs, initial, syncs, (int) log[0], log[1], Cpu.loadValue());
        }
    }

    /** Times syncs on this thread and reads the Tableflow thread's work since the previous one. */
    private static final class Probe {
        private final InProcessFloe floe;
        private final Thread tableflow;
        private final DeltaMirror mirror;
        private final String driver = Thread.currentThread().getName();
        private long roundCpu;
        private CountingObjectStore.Requests roundRequests;

        Probe(InProcessFloe floe, Thread tableflow, DeltaMirror mirror, String table) {
            this.floe = floe;
            this.tableflow = tableflow;
            this.mirror = mirror;
            this.roundCpu = Cpu.threadNanos(tableflow);
            this.roundRequests = floe.objects().requests(tableflow.getName());
        }

        Sync sync(int commit, Table table) {
            long roundCpuNow = Cpu.threadNanos(tableflow);
            CountingObjectStore.Requests roundNow = floe.objects().requests(tableflow.getName());
            CountingObjectStore.Requests before = floe.objects().requests(driver);
            long cpu = Cpu.currentThreadNanos();
            long wall = System.nanoTime();
            DeltaMirror.Outcome outcome = mirror.sync(table);
            double wallMs = (System.nanoTime() - wall) / 1e6;
            double cpuMs = (Cpu.currentThreadNanos() - cpu) / 1e6;
            CountingObjectStore.Requests requests = floe.objects().requests(driver).minus(before);
            Snapshot snapshot = table.currentSnapshot();
            Sync sync = new Sync(commit, snapshot.operation(), snapshot.summary().get("total-data-files"),
                    snapshot.summary().get("total-delete-files"), cpuMs, wallMs, requests,
                    (roundCpuNow - roundCpu) / 1e6, roundNow.minus(roundRequests), outcome);
            roundCpu = roundCpuNow;
            roundRequests = roundNow;
            return sync;
        }
    }

    /** The Delta log's files and bytes under {@code dir}. */
    private static long[] deltaLog(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            List<Path> files = paths.filter(Files::isRegularFile)
                    .filter(path -> path.toString().contains("/_delta_log/"))
                    .toList();
            long bytes = 0;
            for (Path file : files) {
                bytes += Files.size(file);
            }
            return new long[] {files.size(), bytes};
        }
    }

    /** The summary lines of one mode's run: medians and maxima of the syncs, with and without a checkpoint. */
    static List<String> summary(Result result) {
        List<String> lines = new ArrayList<>();
        List<Sync> plain = result.syncs().stream().filter(sync -> !sync.checkpoint()).toList();
        List<Sync> checkpoints = result.syncs().stream().filter(Sync::checkpoint).toList();
        lines.add(String.format(Locale.ROOT, "delta cost mode=%s keys=%d rate=%.0f records/s commitIntervalMs=%d"
                        + " commits=%d deltaLogFiles=%d deltaLogKB=%.0f load=%.2f", result.mode(), result.keys(),
                result.rate(), result.commitIntervalMs(), result.syncs().size(), result.deltaLogFiles(),
                result.deltaLogBytes() / 1024.0, result.load()));
        lines.add(stats("  syncs without a checkpoint", plain));
        lines.add(stats("  syncs with a checkpoint", checkpoints));
        lines.add(stats("  all syncs", result.syncs()));
        return lines;
    }

    private static String stats(String what, List<Sync> syncs) {
        if (syncs.isEmpty()) {
            return what + ": none";
        }
        return String.format(Locale.ROOT, "%s: %d; sync cpuMs median %.1f p90 %.1f max %.1f; wallMs median %.1f;"
                        + " puts median %.0f (%.1f KB) gets median %.0f lists median %.0f; iceberg round cpuMs median %.1f,"
                        + " puts median %.0f gets median %.0f lists median %.0f",
                what, syncs.size(), Stats.median(syncs, Sync::cpuMs), Stats.quantile(syncs, Sync::cpuMs, 0.9),
                Stats.max(syncs, Sync::cpuMs), Stats.median(syncs, Sync::wallMs),
                Stats.median(syncs, s -> s.delta().puts()), Stats.median(syncs, s -> s.delta().putBytes() / 1024.0),
                Stats.median(syncs, s -> s.delta().gets()),
                Stats.median(syncs, s -> s.delta().lists()), Stats.median(syncs, Sync::roundCpuMs),
                Stats.median(syncs, s -> s.round().puts()), Stats.median(syncs, s -> s.round().gets()),
                Stats.median(syncs, s -> s.round().lists()));
    }
}
