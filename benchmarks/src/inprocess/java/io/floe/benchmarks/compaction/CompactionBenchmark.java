package io.floe.benchmarks.compaction;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point: produces the workload through an in-process agent, reads it all twice, compacts, cleans up,
 * reads it all twice more, and prints a Markdown report (also written to {@code --out}). Exits with 1 when a
 * read after compaction returned other records than the reads before, 2 on bad options. See
 * {@link CompactionOptions#USAGE}; {@code benchmarks/run-compaction.sh} builds the classpath and runs it.
 */
public final class CompactionBenchmark {

    private static final Logger LOGGER = LoggerFactory.getLogger(CompactionBenchmark.class);
    static final String TOPIC = "compaction-bench";

    private CompactionBenchmark() {}

    public static void main(String[] args) throws IOException {
        CompactionOptions options;
        try {
            options = CompactionOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Clock clock = Clock.systemUTC();
        String load = loadAverage();
        MaintenanceConfig config = MaintenanceConfig.DEFAULTS.withCompaction(
                MaintenanceConfig.DEFAULTS.compactionInterval(), options.targetBytes(), options.smallObjectBytes(),
                Duration.ZERO);
        Path dir = Files.createTempDirectory("floe-compaction-");
        Measurements measurements;
        try {
            measurements = run(options, config, dir, clock);
        } finally {
            if (options.keepDir()) {
                LOGGER.info("kept metadata and objects dir={}", dir);
            } else {
                deleteRecursively(dir);
            }
        }
        long inFlightBytesMax = Ingest.inFlightBytesMax(AgentConfig.defaults().flushesInFlightMax(), options);
        String markdown = new CompactionReport(options, config, inFlightBytesMax, measurements)
                .markdown(LocalDate.now(clock).toString(), command(options), machine(), load);
        System.out.println();
        System.out.println(markdown);
        if (options.markdownOut().isPresent()) {
            Files.writeString(options.markdownOut().get(), markdown);
            LOGGER.info("wrote report file={}", options.markdownOut().get().toAbsolutePath());
        }
        List<String> problems = measurements.mismatches(options.records());
        if (!problems.isEmpty()) {
            System.err.println("compaction benchmark: the reads disagree: " + problems);
            System.exit(1);
        }
    }

    private static Measurements run(CompactionOptions options, MaintenanceConfig config, Path dir, Clock clock) {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        // No object cache: every fetch reads the object store, the layout compaction changes.
        AgentConfig agentConfig = AgentConfig.defaults().withFlush(options.flushInterval(), options.flushBytes())
                .withCacheBytesMax(0);
        try (MetadataStore metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
                ObjectStore objects = new LocalObjectStore(dir.resolve("objects"));
                Agent agent = Agent.start(agentConfig, AgentMetadata.of(metadata), objects, meters, clock)) {
            Topic topic = agent.topics().create(new NewTopic(TOPIC, options.partitions(), Map.of()), false);
            Ingest ingest = new Ingest(agent, topic, options, clock);
            Compactor compactor = new Compactor(config, metadata, objects, clock, meters);
            long produceNanos = produce(options, ingest, compactor);
            Storage before = Storage.of(metadata, objects);
            LOGGER.info("produced seconds={} {}", produceNanos / 1e9, before);

            ReadAll reader = new ReadAll(agent, topic, meters);
            List<ReadPass> uncompacted = options.compactsWhileProducing() ? List.of()
                    : readPasses(reader, "uncompacted", options.readPasses());
            compactor.compactAndClean();
            CompactionRun compaction = compactor.totals();
            Storage after = Storage.of(metadata, objects);
            LOGGER.info("compacted {} {}", compaction, after);
            List<ReadPass> compacted = readPasses(reader, "compacted", options.readPasses());
            Timer puts = meters.get("floe.objectstore.requests").tag("kind", "PUT").timer();
            long putBytes = (long) meters.get("floe.objectstore.bytes").tag("kind", "PUT").counter().count();
            return new Measurements(produceNanos, ingest.producedBytes(), puts.count(), putBytes, before, uncompacted,
                    compaction, after, compacted);
        }
    }

    /**
     * Produces every record, compacting after every {@code --compact-every-records} if asked (not after the last:
     * the caller compacts then); returns the time spent producing.
     */
    private static long produce(CompactionOptions options, Ingest ingest, Compactor compactor) {
        LOGGER.info("producing records={} valueBytes={} batchRecords={} partitions={} inFlightBytesMax={}",
                options.records(), options.valueBytes(), options.batchRecords(), options.partitions(),
                ingest.inFlightBytesMax());
        long step = options.compactsWhileProducing() ? options.compactEveryRecords() : options.records();
        long nanos = 0;
        for (long from = 0; from < options.records(); from += step) {
            long start = System.nanoTime();
            ingest.produce(from, Math.min(from + step, options.records()));
            nanos += System.nanoTime() - start;
            if (from + step < options.records()) {
                compactor.compactAndClean();
            }
        }
        return nanos;
    }

    private static List<ReadPass> readPasses(ReadAll reader, String layout, int passes) {
        List<ReadPass> done = new ArrayList<>(passes);
        for (int i = 1; i <= passes; i++) {
            ReadPass pass = reader.read(layout + ", pass " + i);
            LOGGER.info("read {}: records={} seconds={} fetchSeconds={} gets={}", pass.label(), pass.records(),
                    pass.wallSeconds(), pass.fetchSeconds(), pass.objectGets());
            done.add(pass);
        }
        return done;
    }

    /** The user-level command: run-compaction.sh passes its own command line in {@code floe.bench.command}. */
    private static String command(CompactionOptions options) {
        String fromScript = System.getProperty("floe.bench.command");
        if (fromScript != null && !fromScript.isBlank()) {
            return fromScript.strip();
        }
        return "java " + CompactionBenchmark.class.getName() + " " + String.join(" ", options.commandLine());
    }

    private static String machine() {
        long memoryBytes = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        return String.format(Locale.ROOT, "%d cores, %.1f GiB RAM, %s %s, max heap %d MiB, %s %s",
                Runtime.getRuntime().availableProcessors(), memoryBytes / (1024.0 * 1024 * 1024),
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                Runtime.getRuntime().maxMemory() >> 20, System.getProperty("os.name"),
                System.getProperty("os.version"));
    }

    /** The 1-minute load average as the run starts: above the core count, other processes competed for the CPU. */
    private static String loadAverage() {
        try {
            String load = Files.readString(Path.of("/proc/loadavg")).strip().split("\\s+")[0];
            return "1-minute load average " + load + " at the start";
        } catch (IOException | RuntimeException e) {
            return "load average unknown";
        }
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOGGER.warn("cannot delete dir={} error={}", root, e.toString());
        }
    }
}
