package io.floe.benchmarks.cluster;

import io.floe.benchmarks.e2e.ChildProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the cluster benchmark ({@code benchmarks/run-cluster.sh}): PostgreSQL and S3Proxy, N agents on
 * them, a topic, a warm-up (records into a topic of their own, not measured), then three phases, each between two
 * {@link Snapshot}s:
 * <ol>
 *   <li><b>idle</b>: nothing runs for {@code --idle-seconds}; the baseline (heartbeats, maintenance) of the rates.
 *   <li><b>produce</b>: a {@link TailConsumer} takes its positions at the empty tail, then the {@link LoadProducer}s
 *       send {@code --records} records at full load while it reads them as they are committed (tail reads).
 *   <li><b>catch-up</b>: a {@link GroupConsumer} group reads the topic from the start (catch-up reads).
 *   <li><b>steady</b> (unless {@code --steady-rate 0}): one {@link LoadProducer} at a fixed rate into a topic of
 *       its own, for latencies without the producers' own queueing.
 * </ol>
 * Prints a Markdown {@link ClusterReport} (also written to {@code --out}); exits 1 when a phase failed.
 */
public final class ClusterBenchmark {

    private static final Logger LOGGER = LoggerFactory.getLogger(ClusterBenchmark.class);
    private static final Duration SETTLE = Duration.ofSeconds(2);
    private static final Duration TAIL_READY_TIMEOUT = Duration.ofSeconds(60);

    private final ClusterOptions options;
    private final Path workDir;
    private final Tools tools;
    private final List<String> notes = new ArrayList<>();
    private final List<AgentNode> agents = new ArrayList<>();
    private volatile ClusterStores stores;
    // What the run measured so far; a phase that did not happen stays empty (the report says why from the notes).
    private Map<Integer, Integer> led = Map.of();
    private Optional<Phase> idle = Optional.empty();
    private Optional<Phase> produce = Optional.empty();
    private Optional<Phase> catchUp = Optional.empty();
    private Optional<Phase> steady = Optional.empty();
    private Optional<Tools.Produced> produced = Optional.empty();
    private Optional<Tools.Tailed> tailed = Optional.empty();
    private Optional<Tools.CaughtUp> caughtUp = Optional.empty();
    private Optional<Tools.Produced> steadyProduced = Optional.empty();
    private List<RateSampler.Sample> produceSamples = List.of();
    private List<RateSampler.Sample> steadySamples = List.of();

    private ClusterBenchmark(ClusterOptions options, Path workDir) {
        this.options = options;
        this.workDir = workDir;
        this.tools = new Tools(options, workDir);
    }

    public static void main(String[] args) throws Exception {
        ClusterOptions options;
        try {
            options = ClusterOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path workDir = Files.createTempDirectory("floe-cluster-");
        // PostgreSQL runs as nobody when the driver runs as root: its directories must be reachable.
        Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        ClusterBenchmark benchmark = new ClusterBenchmark(options, workDir);
        Runtime.getRuntime().addShutdownHook(new Thread(benchmark::stopAll, "stop-on-exit"));
        ClusterRun run = benchmark.run();
        benchmark.stopAll();

        ClusterReport report = new ClusterReport(options, run);
        String markdown = report.markdown(command(options), machine());
        System.out.println();
        System.out.println(markdown);
        if (options.markdownOut().isPresent()) {
            Path out = options.markdownOut().get();
            if (out.toAbsolutePath().getParent() != null) {
                Files.createDirectories(out.toAbsolutePath().getParent());
            }
            Files.writeString(out, markdown);
            LOGGER.info("wrote report file={}", out.toAbsolutePath());
        }
        if (options.keepDirs()) {
            LOGGER.info("kept logs and stores dir={}", workDir);
        } else {
            deleteRecursively(workDir);
        }
        System.exit(run.complete() ? 0 : 1);
    }

    private ClusterRun run() throws InterruptedException {
        String startedAt =
                DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
                                Instant.now().atOffset(ZoneOffset.UTC).withNano(0)) + "Z";
        double loadAtStart = Snapshot.currentLoadAverage();
        try {
            startCluster();
            String bootstrap = agents.stream().map(AgentNode::bootstrap).collect(Collectors.joining(","));
            createTopic(bootstrap);
            led = partitionsLed();
            if (options.warmupRecords() > 0) {
                LOGGER.info("phase=warm-up records={} topic={}", options.warmupRecords(), Tools.WARMUP_TOPIC);
                tools.warmUp(bootstrap).ifPresent(failure -> notes.add("The warm-up failed: " + failure));
            }
            idle = Optional.of(idlePhase());
            producePhase(bootstrap);
            catchUpPhase(bootstrap);
            if (options.steadyRecords() > 0) {
                steadyPhase(bootstrap);
            }
        } catch (IOException | RuntimeException e) {
            LOGGER.error("run failed", e);
            notes.add("The run stopped early: "
                    + e.getMessage().lines().findFirst().orElse(e.toString()));
        }
        List<Long> rss = agents.stream().map(AgentNode::peakRssBytes).toList();
        return new ClusterRun(
                startedAt,
                loadAtStart,
                led,
                idle,
                produce,
                catchUp,
                steady,
                produced,
                tailed,
                caughtUp,
                steadyProduced,
                produceSamples,
                steadySamples,
                rss,
                tools.commandLines("<all agents>"),
                List.copyOf(notes));
    }

    /** The tail consumer takes its positions, then the producers run; PUT counts are sampled meanwhile. */
    private void producePhase(String bootstrap) throws IOException, InterruptedException {
        ChildProcess tail = null;
        if (options.tailConsumer()) {
            tail = tools.startTail(bootstrap);
            tools.awaitTailReady(tail, TAIL_READY_TIMEOUT);
        }
        Snapshot before = snapshot();
        RateSampler sampler = new RateSampler(agents);
        try {
            LOGGER.info(
                    "phase=produce records={} producers={}x{}",
                    options.records(),
                    options.producerProcesses(),
                    options.producers());
            produced = Optional.of(tools.produce(bootstrap));
            if (tail != null) {
                tailed = Optional.of(tools.awaitTail(tail));
            }
            Thread.sleep(SETTLE.toMillis());
        } finally {
            sampler.close();
        }
        produceSamples = sampler.samples();
        Files.write(workDir.resolve("produce-timeline.csv"), RateSampler.csv(produceSamples));
        produce = Optional.of(Phase.between("produce", before, snapshot(), sampler.loadAverages()));
        checkAgentsAlive("produce");
    }

    private void catchUpPhase(String bootstrap) throws IOException, InterruptedException {
        Snapshot before = snapshot();
        LOGGER.info("phase=catch-up group={} members={}", Tools.GROUP, options.groupMembers());
        caughtUp = Optional.of(tools.catchUp(bootstrap));
        Thread.sleep(SETTLE.toMillis());
        catchUp = Optional.of(Phase.between("catch-up", before, snapshot(), List.of()));
        checkAgentsAlive("catch-up");
    }

    private void steadyPhase(String bootstrap) throws IOException, InterruptedException {
        Snapshot before = snapshot();
        LOGGER.info("phase=steady rate={} seconds={}", options.steadyRate(), options.steadySeconds());
        RateSampler sampler = new RateSampler(agents);
        try {
            steadyProduced = Optional.of(tools.steady(bootstrap));
            Thread.sleep(SETTLE.toMillis());
        } finally {
            sampler.close();
        }
        steadySamples = sampler.samples();
        steady = Optional.of(Phase.between("steady", before, snapshot(), sampler.loadAverages()));
        checkAgentsAlive("steady");
    }

    private void startCluster() throws IOException, InterruptedException {
        LOGGER.info("starting PostgreSQL and S3Proxy dir={}", workDir);
        stores = ClusterStores.start(workDir.resolve("stores"), options.pgDurable(), options.s3proxyClasspath());
        LOGGER.info(
                "stores up postgres={} s3={}",
                stores.postgres().maskedUrl(),
                stores.s3().endpoint());
        for (int nodeId = 1; nodeId <= options.agents(); nodeId++) {
            agents.add(AgentNode.launch(
                    nodeId,
                    options.floeScript(),
                    workDir.resolve("agent-" + nodeId),
                    stores.agentArguments(),
                    options.agentArguments(),
                    options.floeJavaOptions()));
        }
        for (AgentNode agent : agents) {
            agent.awaitHealthy(options.startTimeout());
        }
        // Each agent answers Metadata from its own view of the membership: all must list every agent.
        for (AgentNode agent : agents) {
            awaitBrokers(agent);
        }
        LOGGER.info(
                "agents up {}",
                agents.stream()
                        .map(a -> a.nodeId() + "@" + a.bootstrap() + " pid " + a.pid())
                        .collect(Collectors.joining(", ")));
    }

    private void awaitBrokers(AgentNode agent) throws InterruptedException {
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        int seen = 0;
        try (Admin admin = admin(agent.bootstrap())) {
            while (System.nanoTime() < deadline) {
                try {
                    seen = admin.describeCluster()
                            .nodes()
                            .get(10, TimeUnit.SECONDS)
                            .size();
                    if (seen == options.agents()) {
                        return;
                    }
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    LOGGER.debug("describeCluster agent={} error={}", agent.nodeId(), e.toString());
                }
                Thread.sleep(500);
            }
        }
        throw new IllegalStateException("agent " + agent.nodeId() + " lists " + seen + " brokers, not "
                + options.agents() + ", after " + options.startTimeout().toSeconds() + " s");
    }

    private void createTopic(String bootstrap) throws InterruptedException {
        try (Admin admin = admin(bootstrap)) {
            List<NewTopic> topics = new ArrayList<>();
            topics.add(new NewTopic(Tools.TOPIC, options.partitions(), (short) 1));
            if (options.warmupRecords() > 0) {
                // As many partitions, so the warm-up reaches every agent.
                topics.add(new NewTopic(Tools.WARMUP_TOPIC, options.partitions(), (short) 1));
            }
            if (options.steadyRecords() > 0) {
                topics.add(new NewTopic(Tools.STEADY_TOPIC, options.partitions(), (short) 1));
            }
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + Tools.TOPIC + ": " + e, e);
        }
        for (AgentNode agent : agents) {
            awaitTopic(agent);
        }
        LOGGER.info("topic={} partitions={} known to all {} agents", Tools.TOPIC, options.partitions(), agents.size());
    }

    /** How many of the topic's partitions each node leads, as the first agent answers Metadata. */
    private Map<Integer, Integer> partitionsLed() {
        Map<Integer, Integer> led = new TreeMap<>();
        try (Admin admin = admin(agents.get(0).bootstrap())) {
            admin.describeTopics(Set.of(Tools.TOPIC))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(Tools.TOPIC)
                    .partitions()
                    .forEach(p -> led.merge(p.leader() == null ? -1 : p.leader().id(), 1, Integer::sum));
        } catch (ExecutionException | java.util.concurrent.TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            notes.add("Could not read the partitions' leaders: " + e);
        }
        return led;
    }

    private void awaitTopic(AgentNode agent) throws InterruptedException {
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        try (Admin admin = admin(agent.bootstrap())) {
            while (System.nanoTime() < deadline) {
                try {
                    int partitions = admin.describeTopics(Set.of(Tools.TOPIC))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(Tools.TOPIC)
                            .partitions()
                            .size();
                    if (partitions == options.partitions()) {
                        return;
                    }
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    LOGGER.debug("describeTopics agent={} error={}", agent.nodeId(), e.toString());
                }
                Thread.sleep(500);
            }
        }
        throw new IllegalStateException("agent " + agent.nodeId() + " does not know topic " + Tools.TOPIC);
    }

    private Phase idlePhase() throws IOException, InterruptedException {
        LOGGER.info("phase=idle seconds={}", options.idleSeconds());
        Snapshot before = snapshot();
        Thread.sleep(options.idleSeconds() * 1000L);
        return Phase.between("idle", before, snapshot(), List.of());
    }

    private Snapshot snapshot() throws IOException, InterruptedException {
        return Snapshot.take(agents, stores);
    }

    private void checkAgentsAlive(String phase) {
        for (AgentNode agent : agents) {
            if (!agent.isAlive()) {
                notes.add("Agent " + agent.nodeId() + " was not running after the " + phase + " phase. Log tail: "
                        + agent.logTail(5).replace('\n', ' '));
            }
        }
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG,
                "bench-admin"));
    }

    /** Stops the agents (each flushes and commits what it holds), then the stores, then any tool still running. */
    private synchronized void stopAll() {
        try {
            for (AgentNode agent : agents) {
                int exit = agent.stop();
                if (exit > 0) {
                    LOGGER.warn("agent={} exited {}", agent.nodeId(), exit);
                }
            }
            agents.clear();
            ClusterStores running = stores;
            stores = null;
            if (running != null) {
                running.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ChildProcess.killAll();
        }
    }

    /** The user-level command: run-cluster.sh passes its own command line in {@code floe.bench.command}. */
    private static String command(ClusterOptions options) {
        String fromScript = System.getProperty("floe.bench.command");
        if (fromScript != null && !fromScript.isBlank()) {
            return fromScript;
        }
        return "java " + ClusterBenchmark.class.getName() + " " + String.join(" ", options.commandLine());
    }

    private static String machine() {
        long memoryBytes = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        return String.format(
                Locale.ROOT,
                "%d cores, %.1f GiB RAM, %s %s, %s %s",
                Runtime.getRuntime().availableProcessors(),
                memoryBytes / (1024.0 * 1024 * 1024),
                System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"),
                System.getProperty("os.name"),
                System.getProperty("os.version"));
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
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
