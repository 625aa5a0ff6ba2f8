package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workload run on each system, the same for all: create the topic, produce N records with ProducerPerformance
 * unthrottled (throughput at saturation), then read them all back with ConsumerPerformance (group) and/or the
 * assign()-based consumer. Last, unless {@code --latency-rate 0}, the steady-rate phase: ProducerPerformance
 * throttled to a rate the system sustains, into a topic of its own, for latencies without producer-side queueing.
 * After each phase that ran, before the next starts, the system's live heap is read (see {@link LiveHeap}).
 */
final class Workload {

    private static final Logger LOGGER = LoggerFactory.getLogger(Workload.class);
    static final String TOPIC = "bench";
    static final String LATENCY_TOPIC = "bench-latency";
    private static final long CREATE_TOPIC_TIMEOUT_S = 60;
    private static final Path LOADAVG = Path.of("/proc/loadavg");

    private final BenchmarkOptions options;
    private final PerfRunner perf;

    Workload(BenchmarkOptions options, PerfRunner perf) {
        this.options = options;
        this.perf = perf;
    }

    SystemRun run(int round, Target target, Path dir) throws InterruptedException {
        List<String> notes = new ArrayList<>();
        String bootstrap = target.bootstrapServers();
        createTopic(bootstrap, TOPIC)
                .ifPresent(error ->
                        notes.add("CreateTopics " + TOPIC + " failed (" + error + "); relied on auto-creation"));
        Map<LiveHeap.Phase, Outcome<Long>> live = new EnumMap<>(LiveHeap.Phase.class);
        Outcome<ProducerSummary> produce = perf.produce(bootstrap, TOPIC, dir.resolve("producer.log"));
        live.put(LiveHeap.Phase.PRODUCE, liveHeap(target, produce, LiveHeap.Phase.PRODUCE, dir));
        Outcome<ConsumerSummary> group;
        Outcome<ConsumerSummary> assign;
        if (produce.measured().isEmpty()) {
            group = Outcome.skipped("produce failed");
            assign = Outcome.skipped("produce failed");
        } else {
            group = options.consumerMode().runsPerf()
                    ? perf.consumeWithGroup(bootstrap, TOPIC, dir.resolve("consumer-perf.log"))
                    : Outcome.skipped("--consumer assign");
            live.put(LiveHeap.Phase.GROUP_CONSUME, liveHeap(target, group, LiveHeap.Phase.GROUP_CONSUME, dir));
            assign = options.consumerMode().runsAssign()
                    ? perf.consumeWithAssign(bootstrap, TOPIC, dir.resolve("consumer-assign.log"))
                    : Outcome.skipped("--consumer perf");
            live.put(LiveHeap.Phase.ASSIGN_CONSUME, liveHeap(target, assign, LiveHeap.Phase.ASSIGN_CONSUME, dir));
        }
        Outcome<ProducerSummary> latency = steadyRate(bootstrap, dir, notes);
        live.put(LiveHeap.Phase.STEADY, liveHeap(target, latency, LiveHeap.Phase.STEADY, dir));
        return new SystemRun(
                round,
                target.label(),
                produce,
                group,
                assign,
                latency,
                target.peakHeapBytes(),
                new LiveHeap(live),
                target.peakRssBytes(),
                notes);
    }

    /**
     * The live heap at the end of a phase: a full GC, then the used heap. Read after a failed phase too (the system
     * may still hold what it took in); not after a skipped one, which changed nothing.
     */
    private static Outcome<Long> liveHeap(Target target, Outcome<?> phase, LiveHeap.Phase name, Path dir)
            throws InterruptedException {
        if (phase instanceof Outcome.Skipped<?> skipped) {
            return Outcome.skipped(skipped.reason());
        }
        try {
            long usedBytes = target.liveHeapBytes(dir.resolve(name.histogramFileName()));
            LOGGER.info("live heap system={} after={} usedBytes={}", target.label(), name.label(), usedBytes);
            return Outcome.measured(usedBytes);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            LOGGER.warn("no live heap system={} after={} error={}", target.label(), name.label(), e.toString());
            return Outcome.failed(e.getMessage() != null ? e.getMessage() : e.toString());
        }
    }

    /**
     * The steady-rate phase. It runs even when the saturation run failed: it asks far less of the system, and a
     * system that fails at saturation may still hold a modest rate.
     */
    private Outcome<ProducerSummary> steadyRate(String bootstrap, Path dir, List<String> notes)
            throws InterruptedException {
        if (!options.latencyPhase()) {
            return Outcome.skipped("--latency-rate 0");
        }
        createTopic(bootstrap, LATENCY_TOPIC)
                .ifPresent(error -> notes.add(
                        "CreateTopics " + LATENCY_TOPIC + " failed (" + error + "); relied on auto-creation"));
        busyMachine().ifPresent(notes::add);
        return perf.produceAtSteadyRate(bootstrap, LATENCY_TOPIC, dir.resolve("producer-steady.log"));
    }

    /**
     * A note when other processes compete for the CPU as the steady phase starts (1-minute load average above the
     * core count, from /proc/loadavg): latencies measured then are inflated.
     */
    private static Optional<String> busyMachine() {
        try {
            double load = Double.parseDouble(Files.readString(LOADAVG).strip().split("\\s+")[0]);
            int cores = Runtime.getRuntime().availableProcessors();
            return load > cores
                    ? Optional.of(String.format(
                            Locale.ROOT,
                            "1-minute load average %.1f on %d cores as the steady "
                                    + "phase started: other processes competed for the CPU, its latencies are inflated.",
                            load,
                            cores))
                    : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Creates the topic with P partitions, replication 1; returns the error when that failed. */
    private Optional<String> createTopic(String bootstrapServers, String topic) throws InterruptedException {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG,
                "bench-admin"))) {
            admin.createTopics(Set.of(new NewTopic(topic, options.partitions(), (short) 1)))
                    .all()
                    .get(CREATE_TOPIC_TIMEOUT_S, TimeUnit.SECONDS);
            return Optional.empty();
        } catch (ExecutionException e) {
            return e.getCause() instanceof TopicExistsException
                    ? Optional.empty()
                    : Optional.of(e.getCause().toString());
        } catch (TimeoutException e) {
            return Optional.of("no answer in " + CREATE_TOPIC_TIMEOUT_S + " s");
        }
    }
}
