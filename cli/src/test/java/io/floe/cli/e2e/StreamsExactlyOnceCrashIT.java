package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.agent.InProcessS3;
import io.floe.cli.e2e.faults.Agents;
import io.floe.cli.e2e.faults.Await;
import io.floe.testkit.postgres.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance test of transactions across agents: a Kafka Streams word count (a repartition topic
 * and a changelog topic) with exactly_once_v2 runs against three agents in separate JVMs sharing one
 * PostgreSQL database and one S3 bucket, at the agents' default settings. While an idempotent producer
 * feeds it a known text, and after committed counts have been read, the agent coordinating the Streams
 * producer's transactional id is killed with SIGKILL and not restarted. Read with read_committed from
 * the start, the output must then hold for every word exactly the counts 1, 2, ... n in order: no
 * update lost, none repeated, the last one the word's count in the text. The statestore cache is off,
 * so each word read yields one update. The agents' logs are kept in {@code target/streams-eos-crash-it}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StreamsExactlyOnceCrashIT {

    private static final String BUCKET = "floe-data";
    private static final String INPUT = "text-lines";
    private static final String OUTPUT = "word-counts";
    private static final String APPLICATION = "eos-wordcount";
    private static final int PARTITIONS = 3;
    private static final int LINES = 1_500;
    private static final int LINES_PER_SECOND = 50;
    private static final int WORDS_PER_LINE_MAX = 8;
    private static final List<String> VOCABULARY = List.of(
            "alpha",
            "bravo",
            "charlie",
            "delta",
            "echo",
            "foxtrot",
            "golf",
            "hotel",
            "india",
            "juliett",
            "kilo",
            "lima",
            "mike",
            "november",
            "oscar",
            "papa",
            "quebec",
            "romeo",
            "sierra",
            "tango",
            "uniform",
            "victor",
            "whiskey",
            "xray",
            "yankee",
            "zulu");
    private static final double KILL_WHEN_READ = 0.3;
    private static final Path LOGS = Path.of("target", "streams-eos-crash-it");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final List<String> AGENT_JVM = List.of("-Xmx512m");

    @TempDir
    Path dir;

    private InProcessS3 s3;
    private Agents agents;
    private final long startedAt = System.nanoTime();
    private final Queue<String> timeline = new ConcurrentLinkedQueue<>();
    private final Queue<String> uncaught = new ConcurrentLinkedQueue<>();

    @AfterEach
    void stopEverything() {
        if (agents != null) {
            agents.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void everyCountExactlyOnceWhenTheTransactionCoordinatorIsKilled() throws Exception {
        startAgents();
        List<String> text = text();
        Map<String, Long> expected = counts(text);
        long words = expected.values().stream().mapToLong(Long::longValue).sum();
        try (Admin admin = Records.admin(agents.bootstrap())) {
            admin.createTopics(List.of(
                            new NewTopic(INPUT, PARTITIONS, (short) 1), new NewTopic(OUTPUT, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            mark("topics created");
            InputProducer input = new InputProducer(agents.bootstrap(), text);
            KafkaStreams streams = new KafkaStreams(wordCount(), streamsConfig());
            // close() without a timeout waits forever for a thread stuck on an unreachable coordinator.
            try (AutoCloseable closeStreams = () -> streams.close(CLOSE_TIMEOUT);
                    CommittedReader live = new CommittedReader(agents.bootstrap())) {
                streams.setStateListener((now, before) -> mark("streams " + before + " -> " + now));
                streams.setUncaughtExceptionHandler(exception -> {
                    uncaught.add(exception.toString());
                    mark("stream thread replaced after " + exception);
                    return StreamThreadExceptionResponse.REPLACE_THREAD;
                });
                streams.start();
                input.start();

                Await.until(
                        KILL_WHEN_READ * 100 + "% of the " + words + " updates read committed",
                        RUN_TIMEOUT,
                        () -> live.poll() >= words * KILL_WHEN_READ);
                Map<String, TransactionDescription> before = transactions(admin);
                int victim = victim(before);
                int readAtKill = live.read();
                int ackedAtKill = input.acked();
                int groupCoordinator = admin.describeConsumerGroups(List.of(APPLICATION))
                        .describedGroups()
                        .get(APPLICATION)
                        .get(10, TimeUnit.SECONDS)
                        .coordinator()
                        .id();
                agents.kill(victim);
                input.killed();
                mark("agent " + victim + " killed (group coordinator: agent " + groupCoordinator + "): it coordinated "
                        + before + "; " + readAtKill
                        + " updates read, " + ackedAtKill + " of " + LINES + " lines acknowledged");
                assertThat(ackedAtKill).as("lines acknowledged at the kill").isLessThan(LINES);

                Await.until(
                        "another agent coordinates " + before.keySet(),
                        SETTLE_TIMEOUT,
                        () -> moved(transactions(admin, before.keySet()), victim));
                mark("coordinator moved: " + transactions(admin, before.keySet()));
                assertThat(input.awaitDone(RUN_TIMEOUT)).as("input produced").isTrue();
                mark("input acknowledged");
                Await.until("every word's last count read committed", RUN_TIMEOUT, () -> {
                    live.poll();
                    return live.caughtUp(expected);
                });
                mark("output complete");
                assertThat(live.read() - readAtKill)
                        .as("updates read after the kill")
                        .isPositive();
                assertThat(input.failures()).as("input sends that failed").isEmpty();
                // Lines acknowledged after the kill were counted, so a survivor ended their transactions:
                // each end (transaction version 2) bumps the epoch that the agents store.
                Map<String, TransactionDescription> after = transactions(admin, before.keySet());
                mark("transactions at the end: " + after);
                before.forEach((id, atKill) -> {
                    assertThat(after.get(id).coordinatorId())
                            .as("coordinator of %s after the kill", id)
                            .isNotEqualTo(victim);
                    assertThat(List.of(after.get(id).producerId(), after.get(id).producerEpoch()))
                            .as("producer id and epoch of %s after the kill", id)
                            .isNotEqualTo(List.of(atKill.producerId(), atKill.producerEpoch()));
                });
            }
        }
        mark("streams closed");

        Map<String, List<Long>> committed = readOutput("read_committed");
        Map<String, List<Long>> uncommitted = readOutput("read_uncommitted");
        mark("output read");
        long aborted = size(uncommitted) - size(committed);
        System.out.println("StreamsExactlyOnceCrashIT lines=" + LINES + " words=" + words + " committed="
                + size(committed) + " uncommitted=" + size(uncommitted) + " (aborted " + aborted + ")"
                + " replaced-threads=" + uncaught + " timeline=" + timeline);

        assertThat(committed.keySet()).as("words counted").isEqualTo(expected.keySet());
        assertThat(wrongSequences(committed, expected))
                .as("words whose read_committed counts are not exactly 1..n")
                .isEmpty();
        expected.forEach((word, count) -> assertThat(uncommitted.get(word))
                .as("read_uncommitted counts of '%s'", word)
                .containsAll(LongStream.rangeClosed(1, count).boxed().toList()));
        assertThat(agents.crashes()).as("agents that died on their own").isEmpty();
    }

    private void startAgents() throws Exception {
        s3 = new InProcessS3(Files.createDirectory(dir.resolve("s3")));
        s3.createBucket(BUCKET);
        agents = new Agents(
                3,
                dir,
                LOGS,
                TestPostgres.get().createDatabaseUrl(),
                s3.endpoint(),
                BUCKET,
                AGENT_JVM,
                List.of(),
                START_TIMEOUT);
        agents.startAll();
        // Each agent answers Metadata and FindCoordinator from its own view of the membership.
        for (int nodeId : agents.nodeIds()) {
            try (Admin admin = Records.admin(agents.bootstrap(nodeId))) {
                Await.until(
                        "agent " + nodeId + " lists 3 brokers",
                        START_TIMEOUT,
                        () -> admin.describeCluster()
                                        .nodes()
                                        .get(10, TimeUnit.SECONDS)
                                        .size()
                                == 3);
            }
        }
        mark("agents up");
    }

    private void mark(String event) {
        timeline.add(String.format(Locale.ROOT, "%.1fs %s", (System.nanoTime() - startedAt) / 1e9, event));
    }

    /** The state of each of the application's transactional ids (one per stream thread), by the agents' listings. */
    private static Map<String, TransactionDescription> transactions(Admin admin) throws Exception {
        List<String> ids = admin.listTransactions().all().get(10, TimeUnit.SECONDS).stream()
                .map(TransactionListing::transactionalId)
                .filter(id -> id.startsWith(APPLICATION + "-"))
                .toList();
        assertThat(ids).as("the application's transactional ids").isNotEmpty();
        return transactions(admin, ids);
    }

    private static Map<String, TransactionDescription> transactions(Admin admin, Collection<String> ids)
            throws Exception {
        return new TreeMap<>(admin.describeTransactions(ids).all().get(10, TimeUnit.SECONDS));
    }

    /** The agent coordinating most of the application's transactional ids. */
    private static int victim(Map<String, TransactionDescription> transactions) {
        return transactions.values().stream()
                .collect(Collectors.groupingBy(TransactionDescription::coordinatorId, Collectors.counting()))
                .entrySet()
                .stream()
                .max(Map.Entry.comparingByValue())
                .orElseThrow()
                .getKey();
    }

    private static boolean moved(Map<String, TransactionDescription> transactions, int victim) {
        return transactions.values().stream().noneMatch(t -> t.coordinatorId() == victim);
    }

    /** Word count: lines to words, regrouped by word (repartition topic), counted (changelog topic). */
    private static Topology wordCount() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
                .flatMapValues(line -> Arrays.asList(line.split(" ")))
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private Properties streamsConfig() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, agents.bootstrap());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("streams").toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // No cache: every word read yields one update of its count.
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return props;
    }

    /** {@value #LINES} lines of 1 to {@value #WORDS_PER_LINE_MAX} words of the vocabulary, the same every run. */
    private static List<String> text() {
        Random random = new Random(18);
        return IntStream.range(0, LINES)
                .mapToObj(line -> IntStream.range(0, 1 + random.nextInt(WORDS_PER_LINE_MAX))
                        .mapToObj(word -> VOCABULARY.get(random.nextInt(VOCABULARY.size())))
                        .collect(Collectors.joining(" ")))
                .toList();
    }

    private static Map<String, Long> counts(List<String> text) {
        return text.stream()
                .flatMap(line -> Arrays.stream(line.split(" ")))
                .collect(Collectors.groupingBy(word -> word, TreeMap::new, Collectors.counting()));
    }

    /** Each word whose counts are not 1, 2, ... n, with what was read instead (first differences only). */
    private static List<String> wrongSequences(Map<String, List<Long>> updates, Map<String, Long> expected) {
        List<String> wrong = new ArrayList<>();
        expected.forEach((word, count) -> {
            List<Long> counts = updates.getOrDefault(word, List.of());
            List<Long> want = LongStream.rangeClosed(1, count).boxed().toList();
            if (!counts.equals(want)) {
                int first = IntStream.range(0, Math.min(counts.size(), want.size()))
                        .filter(i -> !counts.get(i).equals(want.get(i)))
                        .findFirst()
                        .orElse(Math.min(counts.size(), want.size()));
                wrong.add(word + ": " + counts.size() + " updates for a count of " + count + ", from position " + first
                        + " " + counts.subList(first, Math.min(counts.size(), first + 5)));
            }
        });
        return wrong;
    }

    private static long size(Map<String, List<Long>> updates) {
        return updates.values().stream().mapToLong(List::size).sum();
    }

    /** Every update of the output from the start to its end offsets (the last stable ones if read committed). */
    private Map<String, List<Long>> readOutput(String isolation) {
        Map<String, List<Long>> updates = new TreeMap<>();
        List<TopicPartition> partitions = outputPartitions();
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        try (KafkaConsumer<String, Long> consumer = outputConsumer(agents.bootstrap(), isolation)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            while (ends.entrySet().stream().anyMatch(end -> consumer.position(end.getKey()) < end.getValue())) {
                assertThat(System.nanoTime() - deadline)
                        .as("reading %s to %s", OUTPUT, ends)
                        .isNegative();
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    updates.computeIfAbsent(record.key(), word -> new ArrayList<>())
                            .add(record.value());
                }
            }
        }
        return updates;
    }

    private static List<TopicPartition> outputPartitions() {
        return IntStream.range(0, PARTITIONS)
                .mapToObj(partition -> new TopicPartition(OUTPUT, partition))
                .toList();
    }

    private static KafkaConsumer<String, Long> outputConsumer(String bootstrap, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        return new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer());
    }

    /** A read_committed reader of the output during the run, polled by the test's thread. */
    private static final class CommittedReader implements AutoCloseable {
        private final KafkaConsumer<String, Long> consumer;
        private final Map<String, Long> latest = new TreeMap<>();
        private int read;

        CommittedReader(String bootstrap) {
            consumer = outputConsumer(bootstrap, "read_committed");
            consumer.assign(outputPartitions());
            consumer.seekToBeginning(outputPartitions());
        }

        /** Reads what is there; returns how many updates were read so far. */
        int poll() {
            for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                latest.put(record.key(), record.value());
                read++;
            }
            return read;
        }

        int read() {
            return read;
        }

        boolean caughtUp(Map<String, Long> expected) {
            return latest.equals(expected);
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    /** The text, one keyed line at a time at {@value #LINES_PER_SECOND} lines a second, by an idempotent producer. */
    private static final class InputProducer {
        private final String bootstrap;
        private final List<String> lines;
        private final AtomicInteger acked = new AtomicInteger();
        private final Queue<String> failures = new ConcurrentLinkedQueue<>();
        private final CountDownLatch killed = new CountDownLatch(1);
        private final Thread thread;

        InputProducer(String bootstrap, List<String> lines) {
            this.bootstrap = bootstrap;
            this.lines = lines;
            this.thread = new Thread(this::run, "input-producer");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void run() {
            long intervalNanos = TimeUnit.SECONDS.toNanos(1) / LINES_PER_SECOND;
            long start = System.nanoTime();
            try (KafkaProducer<byte[], byte[]> producer = Records.producer(bootstrap, Map.of())) {
                for (int line = 0; line < lines.size(); line++) {
                    // The second half waits for the kill, so the kill always lands mid-run, however slow the
                    // machine; the pacing only spreads the first half over several transactions.
                    if (line == lines.size() / 2 && !awaitKill()) {
                        failures.add("no kill within " + RUN_TIMEOUT + " after half the lines");
                        return;
                    }
                    LockSupport.parkNanos(start + line * intervalNanos - System.nanoTime());
                    int number = line;
                    producer.send(
                            new ProducerRecord<>(
                                    INPUT, Records.bytes("line-" + number), Records.bytes(lines.get(number))),
                            (metadata, error) -> {
                                if (error == null) {
                                    acked.incrementAndGet();
                                } else {
                                    failures.add("line " + number + ": " + error);
                                }
                            });
                }
            }
        }

        private boolean awaitKill() {
            try {
                return killed.await(RUN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Lets the second half of the lines go: the coordinator's agent has been killed. */
        void killed() {
            killed.countDown();
        }

        boolean awaitDone(Duration timeout) throws InterruptedException {
            thread.join(timeout.toMillis());
            return !thread.isAlive() && acked.get() + failures.size() == lines.size();
        }

        int acked() {
            return acked.get();
        }

        List<String> failures() {
            return List.copyOf(failures);
        }
    }
}
