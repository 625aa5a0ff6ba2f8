package io.floe.cli.e2e.soak;

import io.floe.cli.agent.InProcessS3;
import io.floe.cli.e2e.faults.Agents;
import io.floe.cli.e2e.faults.Await;
import io.floe.cli.e2e.soak.MetadataRows.Excess;
import io.floe.cli.e2e.soak.MetadataRows.Kind;
import io.floe.cli.e2e.soak.MetadataRows.PartitionRows;
import io.floe.testkit.postgres.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;

/**
 * A soak of transactions across agents (issue 27's acceptance): a Kafka Streams {@code exactly_once_v2}
 * application ({@link CountingApp}) runs for minutes against three agents in child JVMs ({@link Agents})
 * on one PostgreSQL server and one S3 bucket, fed by a plain producer ({@link KeyedInput}), while
 * agents are paused past their leases and killed ({@link SoakFaults}, planned from a seed by
 * {@link SoakSchedule}). It then checks that
 * <ul>
 *   <li>the output, read committed, counted every input record exactly once ({@link ExactlyOnceCheck});
 *   <li>the changelog's metadata rows in PostgreSQL (batches, transaction markers, producer state) are
 *       per partition no more at the end than at the baseline (a minute in) plus its live keys
 *       ({@link MetadataRows}): rows follow live data, not the transactions ever run;
 *   <li>the application caught up once the input stopped and the faults healed, and no agent died on
 *       its own.
 * </ul>
 * It prints one line starting {@code STREAMS-SOAK} to paste into docs, writes a report with the
 * timeline to {@code <logs>/report.md} (the agents' logs beside it), and exits 0 only if every check
 * passed. Run it with {@code benchmarks/run-streams-soak.sh}; it is no test of the build.
 */
public final class StreamsSoak implements AutoCloseable {

    private static final String BUCKET = "floe-data";
    private static final String INPUT = "soak-input";
    private static final String OUTPUT = "soak-output";
    private static final int AGENTS = 3;
    /** As the fault tests run them: a small heap and light compilers, for a machine the run shares with its stores. */
    private static final List<String> AGENT_JVM = List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /** An agent's start, generous: on a 2-core machine shared with other builds, one took over 2 minutes. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    private static final Duration READ_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration SAMPLE_INTERVAL = Duration.ofMinutes(1);
    private static final int LOG_TAIL_LINES = 40;

    private final SoakOptions options;
    /** When the input started: the schedule's and the baseline's times count from it. */
    private volatile long startedAt = System.nanoTime();

    private final Queue<String> timeline = new ConcurrentLinkedQueue<>();
    private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    private final Path dir;
    private TestPostgres postgres;
    private InProcessS3 s3;
    private MetadataRows rows;
    private Agents agents;
    private Admin admin;
    private CountingApp app;
    private KeyedInput input;
    private ScheduledExecutorService sampler;
    private volatile List<PartitionRows> baseline;
    private long inputSeconds;

    /** The changelog's rows (and the output's markers, for comparison) at one time of the run. */
    record Sample(long atSeconds, List<PartitionRows> changelog, long outputMarkers) {}

    private StreamsSoak(SoakOptions options) throws IOException {
        this.options = options;
        this.dir = Files.createTempDirectory("floe-streams-soak-");
    }

    public static void main(String[] args) throws Exception {
        SoakOptions options;
        try {
            options = SoakOptions.parse(args, new SecureRandom().nextLong());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        boolean passed;
        try (StreamsSoak soak = new StreamsSoak(options)) {
            passed = soak.run();
        }
        System.exit(passed ? 0 : 1);
    }

    private boolean run() throws Exception {
        Files.createDirectories(options.logs());
        SoakSchedule schedule = SoakSchedule.plan(options);
        say("STREAMS-SOAK start seed=" + options.seed() + " (replay: benchmarks/run-streams-soak.sh " + options.replay()
                + ")");
        say("STREAMS-SOAK schedule=" + schedule);
        startCluster();
        createTopics();
        startApplicationAndInput();
        SoakFaults faults = new SoakFaults(schedule, agents, admin, startedAt, this::mark);
        faults.run();
        TimeUnit.NANOSECONDS.sleep(startedAt + options.run().toNanos() - System.nanoTime()); // the run's length
        Settled settled = stopAndSettle(faults);
        Outcome outcome = check(schedule, faults, settled);
        String summary = summary(outcome);
        Files.writeString(options.logs().resolve("report.md"), report(outcome, summary));
        say(summary);
        say("STREAMS-SOAK report: " + options.logs().resolve("report.md"));
        return outcome.passed();
    }

    /**
     * The state at the end of the run: whether the input was answered and the application caught up, the input
     * as read whole with each changelog partition's live keys, the changelog's rows when the application caught
     * up and once they settled (or the settling time ran out), and how long that took.
     */
    private record Settled(
            boolean inputDone,
            boolean caughtUp,
            String lag,
            TopicReads.Read input,
            Map<Integer, Long> liveKeys,
            List<PartitionRows> atCatchUp,
            List<PartitionRows> end,
            long settledSeconds) {}

    private void startApplicationAndInput() throws Exception {
        app = new CountingApp(
                options.instances(),
                agents.bootstrap(),
                dir.resolve("streams"),
                INPUT,
                OUTPUT,
                changelogConfig(),
                this::mark);
        app.start();
        Await.until(
                "every instance of the application running",
                START_TIMEOUT,
                () -> app.states().stream().allMatch(state -> state == KafkaStreams.State.RUNNING));
        input = new KeyedInput(
                agents.bootstrap(), INPUT, options.keys(), options.recordsPerSecond(), options.seed() ^ 0x5eed);
        mark("application running; the input starts, and the run's clock with it");
        startedAt = System.nanoTime();
        input.start();
        startSampling();
    }

    /**
     * Stops the input, heals every fault, waits until the application has committed offsets up to the
     * input's end, reads the input whole, counts the changelog's rows, waits (the application idle) until
     * they are within the bound or {@code --rows-settle-seconds} passed, counts them again, and closes the
     * application.
     */
    private Settled stopAndSettle(SoakFaults faults) throws Exception {
        boolean inputDone = input.stop(Duration.ofMinutes(2));
        inputSeconds = elapsedSeconds();
        mark("input stopped: " + input.sent() + " sent, " + input.acked() + " acknowledged, "
                + input.failures().size() + " failed" + (inputDone ? "" : ", some unanswered"));
        faults.heal();
        mark("healed: every agent runs");
        boolean caughtUp = Await.within(options.settle(), this::caughtUp);
        String lag = caughtUp ? "" : lag();
        mark(caughtUp ? "application caught up" : "application NOT caught up after " + options.settle() + ": " + lag);
        List<PartitionRows> atCatchUp = countRows(CountingApp.CHANGELOG);
        mark("rows at catch-up: " + totals(atCatchUp));
        TopicReads.Read inputRead =
                TopicReads.read(agents.bootstrap(), INPUT, options.partitions(), "read_uncommitted", READ_TIMEOUT);
        Map<Integer, Long> liveKeys = liveKeys(inputRead);
        long settling = System.nanoTime();
        List<PartitionRows> first = baseline == null ? List.of() : baseline;
        Await.within(
                options.rowsSettle(),
                () -> MetadataRows.excess(first, countRows(CountingApp.CHANGELOG), liveKeys)
                        .isEmpty());
        long settledSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - settling);
        List<PartitionRows> end = countRows(CountingApp.CHANGELOG);
        mark("rows " + settledSeconds + " s later: " + totals(end));
        sampler.shutdownNow();
        List<String> states = app.states().stream().map(Enum::name).toList();
        app.close();
        mark("application closed (states before: " + states + ")");
        return new Settled(inputDone, caughtUp, lag, inputRead, liveKeys, atCatchUp, end, settledSeconds);
    }

    /** Per input partition (so per changelog partition), the keys its records have. */
    private static Map<Integer, Long> liveKeys(TopicReads.Read input) {
        Map<Integer, Set<String>> keys = new TreeMap<>();
        input.records()
                .forEach(record -> keys.computeIfAbsent(record.partition(), p -> new TreeSet<>())
                        .add(record.key()));
        Map<Integer, Long> live = new TreeMap<>();
        keys.forEach((partition, ofPartition) -> live.put(partition, (long) ofPartition.size()));
        return live;
    }

    /** Reads the output whole and checks it against the input, and the rows against the baseline. */
    private Outcome check(SoakSchedule schedule, SoakFaults faults, Settled settled) {
        TopicReads.Read committed =
                TopicReads.read(agents.bootstrap(), OUTPUT, options.partitions(), "read_committed", READ_TIMEOUT);
        TopicReads.Read uncommitted =
                TopicReads.read(agents.bootstrap(), OUTPUT, options.partitions(), "read_uncommitted", READ_TIMEOUT);
        mark("output read");
        Map<String, List<Long>> inputs = new TreeMap<>();
        settled.input()
                .records()
                .forEach(record -> inputs.computeIfAbsent(record.key(), k -> new ArrayList<>())
                        .add(Long.parseLong(record.value())));
        Map<String, List<String>> outputs = new TreeMap<>();
        committed
                .records()
                .forEach(record -> outputs.computeIfAbsent(record.key(), k -> new ArrayList<>())
                        .add(record.value()));
        List<PartitionRows> first = baseline == null ? List.of() : baseline;
        return new Outcome(
                schedule,
                faults,
                settled,
                committed,
                uncommitted,
                ExactlyOnceCheck.check(inputs, outputs),
                first,
                MetadataRows.excess(first, settled.end(), settled.liveKeys()),
                agents.crashes().size());
    }

    /** Everything the checks found, for the summary and the report. */
    private record Outcome(
            SoakSchedule schedule,
            SoakFaults faults,
            Settled settled,
            TopicReads.Read committed,
            TopicReads.Read uncommitted,
            ExactlyOnceCheck.Result exactly,
            List<PartitionRows> baseline,
            List<Excess> excess,
            int agentCrashes) {

        boolean passed() {
            return exactly.exactlyOnce() && readsComplete() && rowsBounded() && settled.caughtUp() && agentCrashes == 0;
        }

        boolean readsComplete() {
            return settled.input().complete() && committed.complete() && uncommitted.complete();
        }

        boolean rowsBounded() {
            return !baseline.isEmpty() && excess.isEmpty();
        }

        List<PartitionRows> end() {
            return settled.end();
        }

        Map<Integer, Long> liveKeys() {
            return settled.liveKeys();
        }
    }

    private void startCluster() throws Exception {
        postgres = TestPostgres.startPrivate();
        String metadataUrl = postgres.createDatabaseUrl();
        String database = metadataUrl.substring(metadataUrl.lastIndexOf('/') + 1);
        rows = new MetadataRows(postgres.jdbcUrl(database), TestPostgres.USER, TestPostgres.PASSWORD);
        s3 = new InProcessS3(Files.createDirectory(dir.resolve("s3")));
        s3.createBucket(BUCKET);
        agents = new Agents(
                AGENTS, dir, options.logs(), metadataUrl, s3.endpoint(), BUCKET, AGENT_JVM, List.of(), START_TIMEOUT);
        agents.startAll();
        admin = admin(agents.bootstrap());
        for (int nodeId : agents.nodeIds()) {
            try (Admin direct = admin(agents.bootstrap(nodeId))) {
                Await.until(
                        "agent " + nodeId + " lists " + AGENTS + " brokers",
                        START_TIMEOUT,
                        () -> direct.describeCluster()
                                        .nodes()
                                        .get(10, TimeUnit.SECONDS)
                                        .size()
                                == AGENTS);
            }
        }
        mark("agents up");
    }

    private void createTopics() throws Exception {
        admin.createTopics(List.of(
                        new NewTopic(INPUT, options.partitions(), (short) 1),
                        new NewTopic(OUTPUT, options.partitions(), (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        for (int nodeId : agents.nodeIds()) {
            try (Admin direct = admin(agents.bootstrap(nodeId))) {
                Await.until(
                        "agent " + nodeId + " knows the topics",
                        START_TIMEOUT,
                        () -> direct
                                .describeTopics(List.of(INPUT, OUTPUT))
                                .allTopicNames()
                                .get(10, TimeUnit.SECONDS)
                                .values()
                                .stream()
                                .allMatch(topic -> topic.partitions().size() == options.partitions()));
            }
        }
        mark("topics created");
    }

    /**
     * The changelog's own settings. Kafka's cleaner removes commit markers (and tombstones) below the
     * cleaned offset once {@code delete.retention.ms} has passed, one day by default: a shorter one lets
     * a run of minutes see them go. {@code segment.ms} rolls the active segment, which Kafka never
     * cleans, every minute.
     */
    private Map<String, String> changelogConfig() {
        return Map.of(
                "delete.retention.ms",
                Long.toString(options.changelogDeleteRetention().toMillis()),
                "segment.ms",
                "60000");
    }

    private void startSampling() {
        sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "soak-rows");
            thread.setDaemon(true);
            return thread;
        });
        long untilBaseline = startedAt + options.baselineAt().toNanos() - System.nanoTime();
        sampler.schedule(
                () -> {
                    baseline = countRows(CountingApp.CHANGELOG);
                    mark("baseline rows counted: " + totals(baseline));
                    return null;
                },
                untilBaseline,
                TimeUnit.NANOSECONDS);
        long untilFirst = startedAt + SAMPLE_INTERVAL.toNanos() - System.nanoTime();
        sampler.scheduleAtFixedRate(
                () -> {
                    try {
                        long markers = MetadataRows.total(countRows(OUTPUT), Kind.MARKERS);
                        samples.add(new Sample(elapsedSeconds(), countRows(CountingApp.CHANGELOG), markers));
                    } catch (Exception e) {
                        mark("rows sample failed: " + e);
                    }
                },
                untilFirst,
                SAMPLE_INTERVAL.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    private List<PartitionRows> countRows(String topic) throws SQLException {
        return rows.count(topic);
    }

    /** Whether the application committed offsets up to the end of every input partition. */
    private boolean caughtUp() throws Exception {
        Map<TopicPartition, Long> ends = inputEnds();
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(CountingApp.APPLICATION)
                .partitionsToOffsetAndMetadata()
                .get(15, TimeUnit.SECONDS);
        return ends.entrySet().stream()
                .allMatch(end -> offsets.containsKey(end.getKey())
                        && offsets.get(end.getKey()).offset() >= end.getValue());
    }

    /** Per input partition, the application's committed offset against the end offset. */
    private String lag() {
        try {
            Map<TopicPartition, Long> ends = inputEnds();
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(CountingApp.APPLICATION)
                    .partitionsToOffsetAndMetadata()
                    .get(15, TimeUnit.SECONDS);
            StringBuilder lag = new StringBuilder("committed/end per input partition:");
            ends.entrySet().stream()
                    .sorted(Map.Entry.comparingByKey(Comparator.comparingInt(TopicPartition::partition)))
                    .forEach(end -> lag.append(' ')
                            .append(end.getKey().partition())
                            .append('=')
                            .append(
                                    offsets.containsKey(end.getKey())
                                            ? offsets.get(end.getKey()).offset()
                                            : "none")
                            .append('/')
                            .append(end.getValue()));
            lag.append("; streams states ").append(app.states());
            lag.append("; transactions ")
                    .append(admin.describeTransactions(admin.listTransactions().all().get(15, TimeUnit.SECONDS).stream()
                                    .map(listing -> listing.transactionalId())
                                    .toList())
                            .all()
                            .get(15, TimeUnit.SECONDS));
            return lag.toString();
        } catch (Exception e) {
            return "lag unknown: " + e;
        }
    }

    private Map<TopicPartition, Long> inputEnds() throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        IntStream.range(0, options.partitions())
                .forEach(partition -> latest.put(new TopicPartition(INPUT, partition), OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest)
                .all()
                .get(15, TimeUnit.SECONDS)
                .forEach((partition, info) -> ends.put(partition, info.offset()));
        return ends;
    }

    private String summary(Outcome outcome) {
        ExactlyOnceCheck.Result exactly = outcome.exactly();
        long aborted = outcome.uncommitted().records().size()
                - outcome.committed().records().size();
        long live =
                outcome.liveKeys().values().stream().mapToLong(Long::longValue).sum();
        return String.format(
                Locale.ROOT,
                "STREAMS-SOAK %s build=%s seed=%d run=%ds (input for %ds) agents=%d pauses=%d kills=%d input=%d keys=%d rate=%d/s"
                        + " exactlyOnce=%s (%s; outputs=%d aborted=%d) caughtUp=%s"
                        + " changelogRows[%d partitions, %d live keys; baseline at %ds -> at catch-up -> %ds later]:"
                        + " batches %d -> %d -> %d, markers %d -> %d -> %d, producer_state %d -> %d -> %d: %s"
                        + " threadsReplaced=%d agentCrashes=%d",
                outcome.passed() ? "PASS" : "FAIL",
                System.getProperty("soak.build", "unknown"),
                options.seed(),
                options.run().toSeconds(),
                inputSeconds,
                AGENTS,
                outcome.faults().injected().getOrDefault(SoakSchedule.Kind.PAUSE, 0),
                outcome.faults().injected().getOrDefault(SoakSchedule.Kind.KILL, 0),
                exactly.inputs(),
                exactly.keys(),
                options.recordsPerSecond(),
                exactly.exactlyOnce() && outcome.readsComplete() ? "yes" : "NO",
                exactly.counts(),
                exactly.outputs(),
                aborted,
                outcome.settled().caughtUp() ? "yes" : "NO",
                outcome.end().size(),
                live,
                options.baselineAt().toSeconds(),
                outcome.settled().settledSeconds(),
                MetadataRows.total(outcome.baseline(), Kind.BATCHES),
                MetadataRows.total(outcome.settled().atCatchUp(), Kind.BATCHES),
                MetadataRows.total(outcome.end(), Kind.BATCHES),
                MetadataRows.total(outcome.baseline(), Kind.MARKERS),
                MetadataRows.total(outcome.settled().atCatchUp(), Kind.MARKERS),
                MetadataRows.total(outcome.end(), Kind.MARKERS),
                MetadataRows.total(outcome.baseline(), Kind.PRODUCER_STATE),
                MetadataRows.total(outcome.settled().atCatchUp(), Kind.PRODUCER_STATE),
                MetadataRows.total(outcome.end(), Kind.PRODUCER_STATE),
                outcome.rowsBounded() ? "bounded" : "NOT bounded (" + excessSummary(outcome.excess()) + ")",
                app.threadDeaths().size(),
                agents.crashes().size());
    }

    private static String excessSummary(List<Excess> excess) {
        if (excess.isEmpty()) {
            return "no baseline";
        }
        Map<Kind, Long> byKind = new TreeMap<>();
        excess.forEach(e -> byKind.merge(e.kind(), 1L, Long::sum));
        return byKind.entrySet().stream()
                        .map(e -> e.getKey().column() + " in " + e.getValue() + " partitions")
                        .reduce((a, b) -> a + ", " + b)
                        .orElse("")
                + ", e.g. " + excess.get(0);
    }

    private String report(Outcome outcome, String summary) {
        StringBuilder report = new StringBuilder();
        report.append("# Kafka Streams exactly-once soak\n\n```\n")
                .append(summary)
                .append("\n```\n\n");
        report.append("Replay: `benchmarks/run-streams-soak.sh ")
                .append(options.replay())
                .append("`\n\n");
        report.append("## Changelog metadata rows per partition (")
                .append(CountingApp.CHANGELOG)
                .append(")\n\n");
        report.append("| partition | live keys | batches: baseline, at catch-up, end | markers: baseline, at catch-up,"
                + " end | producer_state: baseline, end | log start | next offset |\n");
        report.append("|---|---|---|---|---|---|---|\n");
        for (PartitionRows last : outcome.end()) {
            PartitionRows first = rowsOf(outcome.baseline(), last.partition());
            PartitionRows caughtUp = rowsOf(outcome.settled().atCatchUp(), last.partition());
            report.append(String.format(
                    Locale.ROOT,
                    "| %d | %d | %d, %d, %d | %d, %d, %d | %d, %d | %d | %d |%n",
                    last.partition(),
                    outcome.liveKeys().getOrDefault(last.partition(), 0L),
                    first.batches(),
                    caughtUp.batches(),
                    last.batches(),
                    first.markers(),
                    caughtUp.markers(),
                    last.markers(),
                    first.producerStates(),
                    last.producerStates(),
                    last.logStart(),
                    last.next()));
        }
        report.append("\nRows over the baseline plus the live keys: ")
                .append(outcome.excess().isEmpty() ? "none" : outcome.excess().toString())
                .append("\n\n## Rows every minute (changelog totals; the output's markers beside them)\n\n");
        report.append("| at (s) | batches | markers | producer_state | output markers |\n|---|---|---|---|---|\n");
        synchronized (samples) {
            for (Sample sample : samples) {
                report.append(String.format(
                        Locale.ROOT,
                        "| %d | %d | %d | %d | %d |%n",
                        sample.atSeconds(),
                        MetadataRows.total(sample.changelog(), Kind.BATCHES),
                        MetadataRows.total(sample.changelog(), Kind.MARKERS),
                        MetadataRows.total(sample.changelog(), Kind.PRODUCER_STATE),
                        sample.outputMarkers()));
            }
        }
        ExactlyOnceCheck.Result exactly = outcome.exactly();
        report.append("\n## Exactly once\n\n")
                .append(exactly.counts())
                .append("; input read complete: ")
                .append(outcome.settled().input().complete())
                .append(", output read complete: ")
                .append(outcome.committed().complete() && outcome.uncommitted().complete())
                .append("; input sends failed: ")
                .append(input.failures().size())
                .append(outcome.settled().inputDone() ? "" : " (some sends never answered)")
                .append('\n');
        exactly.examples()
                .forEach((kind, shown) -> report.append("- ")
                        .append(kind)
                        .append(": ")
                        .append(shown)
                        .append('\n'));
        input.failures().stream()
                .limit(10)
                .forEach(failure ->
                        report.append("- input send failed: ").append(failure).append('\n'));
        if (!outcome.settled().caughtUp()) {
            report.append("\nNot caught up: ").append(outcome.settled().lag()).append('\n');
        }
        report.append("\n## Stream threads replaced\n\n");
        app.threadDeaths().forEach(death -> report.append("- ").append(death).append('\n'));
        report.append("\n## Faults\n\nSchedule: ")
                .append(outcome.schedule())
                .append("\n\nSteps that did not finish as planned: ")
                .append(
                        outcome.faults().failedSteps().isEmpty()
                                ? "none"
                                : outcome.faults().failedSteps())
                .append("\n\nInjected: ")
                .append(outcome.faults().injected())
                .append(", by agent: ")
                .append(outcome.faults().struck())
                .append(", starts per agent: ")
                .append(agents.starts())
                .append("\n\n## Agents that died on their own (a finding)\n\n");
        agents.crashes().forEach(crash -> report.append("```\n").append(crash).append("\n```\n"));
        report.append("\n## Starts that failed and were tried again (on a loaded machine, often a timeout)\n\n");
        agents.failedStarts()
                .forEach(failed -> report.append("```\n").append(failed).append("\n```\n"));
        report.append("\n## Timeline\n\n");
        timeline.forEach(event -> report.append("- ").append(event).append('\n'));
        return report.toString();
    }

    private static PartitionRows rowsOf(List<PartitionRows> rows, int partition) {
        return rows.stream()
                .filter(row -> row.partition() == partition)
                .findFirst()
                .orElse(new PartitionRows(partition, 0, 0, 0, 0, 0));
    }

    private static String totals(List<PartitionRows> rows) {
        return "batches=" + MetadataRows.total(rows, Kind.BATCHES) + " markers="
                + MetadataRows.total(rows, Kind.MARKERS) + " producer_state="
                + MetadataRows.total(rows, Kind.PRODUCER_STATE);
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        return Admin.create(props);
    }

    private long elapsedSeconds() {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedAt);
    }

    private void mark(String event) {
        String line = String.format(
                Locale.ROOT,
                "%s%.1fs %s",
                input == null || !input.started() ? "setup " : "",
                (System.nanoTime() - startedAt) / 1e9,
                event);
        timeline.add(line);
        System.out.println("STREAMS-SOAK " + line);
    }

    private static void say(String line) {
        System.out.println(line);
    }

    @Override
    public void close() throws Exception {
        if (sampler != null) {
            sampler.shutdownNow();
        }
        if (app != null) {
            app.close();
        }
        if (input != null) {
            input.close();
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(10));
        }
        if (agents != null) {
            agents.close();
        }
        if (s3 != null) {
            s3.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        deleteRecursively(dir);
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
