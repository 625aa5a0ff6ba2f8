package io.floe.benchmarks.tableflow;

import io.floe.core.topic.Topic;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Snapshot;

/**
 * One measured catch-up: a fresh Floe, {@code records} records produced first, then Tableflow turned on for the
 * topic as {@code variant} asks, timed until the table holds every record and the Tableflow thread is quiet
 * again (so a Delta sync or a compaction that follows the last Iceberg commit is counted).
 *
 * @param batchBytes the Kafka batch bytes produced, what "MB per CPU-second" divides
 * @param threadCpuSeconds CPU time of the one Tableflow thread
 * @param processCpuSeconds CPU time of the whole JVM less the driver's own thread (which produced before the clock
 *     started and only polls the table while it runs): the Tableflow thread, GC, JIT and the idle agent
 * @param rows the table's live rows at the end (records less deleted rows)
 */
record CatchUp(
        Variant variant,
        long records,
        long keySpace,
        long batchBytes,
        double seconds,
        double threadCpuSeconds,
        double processCpuSeconds,
        long rows,
        int snapshots,
        String dataFiles,
        String deleteFiles,
        double loadBefore,
        double loadAfter,
        CountingObjectStore.Requests requests) {

    private static final String TOPIC = "bench";
    static CatchUp run(Variant variant, long records, int partitions, long keySpace, long commitIntervalMs)
            throws Exception {
        try (InProcessFloe floe = InProcessFloe.start()) {
            Topic topic = floe.createTopic(TOPIC, partitions, Map.of());
            long bytes = floe.produce(topic, 0, records, id -> EventRecords.key(id, keySpace));
            Thread tableflow = Cpu.tableflowThread();
            String tableflowName = tableflow.getName();
            double loadBefore = Cpu.loadValue();
            long thread0 = Cpu.threadNanos(tableflow);
            long process0 = Cpu.processNanos();
            long driver0 = Cpu.currentThreadNanos();
            CountingObjectStore.Requests requests0 = floe.objects().requests(tableflowName);
            long start = System.nanoTime();
            floe.agent().topics().setConfigs(TOPIC, variant.configs(commitIntervalMs));
            floe.awaitMaterialized(TOPIC, records);
            long[] end = Cpu.awaitQuiet(tableflow);
            long process1 = Cpu.processNanos();
            long driver1 = Cpu.currentThreadNanos();
            Map<String, String> summary = floe.tables().load(TOPIC).orElseThrow().currentSnapshot().summary();
            long rows = Long.parseLong(summary.get("total-records"))
                    - Long.parseLong(summary.getOrDefault("total-position-deletes", "0"));
            int snapshots = 0;
            for (Snapshot ignored : floe.tables().load(TOPIC).orElseThrow().snapshots()) {
                snapshots++;
            }
            return new CatchUp(variant, records, keySpace, bytes, (end[0] - start) / 1e9,
                    (end[1] - thread0) / 1e9, ((process1 - process0) - (driver1 - driver0)) / 1e9, rows, snapshots,
                    summary.get("total-data-files"), summary.get("total-delete-files"), loadBefore, Cpu.loadValue(),
                    floe.objects().requests(tableflowName).minus(requests0));
        }
    }

    double megabytesPerCpuSecond() {
        return batchBytes / 1e6 / threadCpuSeconds;
    }

    double recordsPerCpuSecond() {
        return records / threadCpuSeconds;
    }

    double recordsPerSecond() {
        return records / seconds;
    }

    String line() {
        return String.format(Locale.ROOT, "catch-up variant=%s records=%d keySpace=%d batchMB=%.1f seconds=%.2f"
                        + " records/s=%.0f threadCpuSeconds=%.2f MB/s per thread CPU-second=%.1f records per thread"
                        + " CPU-second=%.0f processCpuSeconds=%.2f MB/s per process CPU-second=%.1f rows=%d"
                        + " snapshots=%d dataFiles=%s deleteFiles=%s puts=%d gets=%d lists=%d deletes=%d load=%.2f-%.2f",
                variant, records, keySpace, batchBytes / 1e6, seconds, recordsPerSecond(), threadCpuSeconds,
                megabytesPerCpuSecond(), recordsPerCpuSecond(), processCpuSeconds,
                batchBytes / 1e6 / processCpuSeconds, rows, snapshots, dataFiles, deleteFiles, requests.puts(),
                requests.gets(), requests.lists(), requests.deletes(), loadBefore, loadAfter);
    }
}
