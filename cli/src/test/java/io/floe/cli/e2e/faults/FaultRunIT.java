package io.floe.cli.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.floe.cli.agent.InProcessS3;
import io.floe.cli.e2e.GroupReader;
import io.floe.cli.e2e.PacedProducer;
import io.floe.cli.e2e.Records;
import io.floe.cli.e2e.faults.FaultRunChecker.Ack;
import io.floe.cli.e2e.faults.FaultRunChecker.History;
import io.floe.cli.e2e.faults.FaultRunChecker.Observation;
import io.floe.cli.e2e.faults.FaultRunChecker.Result;
import io.floe.testkit.postgres.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A black-box fault test in the manner of Jepsen's Kafka test: three agents in child JVMs on a
 * PostgreSQL of the test's own and an S3 server behind a fault-injecting proxy, driven by real
 * kafka-clients. Idempotent producers (acks=all) send unique values and record every
 * acknowledgement; a consumer group polls and commits, recording every poll. Meanwhile a
 * {@link Nemesis} follows a seeded {@link FaultSchedule}: agents killed with SIGKILL and started
 * again, PostgreSQL crashed and started again, its sessions terminated, S3 requests throttled,
 * delayed or their responses lost, connections cut. After the faults heal, two fresh consumers read
 * every partition from the beginning and {@link FaultRunChecker} counts what was lost, duplicated,
 * reordered, changed or never polled: all must be 0, no agent may have died on its own, and no
 * consumer may have met an error that is not retriable.
 *
 * <p>{@code -Dfaults.seed=N} replays a run's schedule (the seed is printed either way);
 * {@code -Dfaults.seconds=N} makes the fault phase longer than its default of {@value #FAULT_SECONDS}
 * s. One summary line starting {@code FAULT-RUN} goes to stdout; the agents' logs are kept in
 * {@code target/fault-run-it}.
 */
class FaultRunIT {

    private static final String BUCKET = "floe-data";
    private static final String TOPIC = "events";
    private static final String GROUP = "event-readers";
    private static final int AGENTS = 3;
    private static final int PARTITIONS = 6;
    private static final int PRODUCERS = 2;
    private static final int READERS = 2;
    private static final int RECORDS_PER_SECOND = 100;
    private static final long FAULT_SECONDS = 40;
    private static final Path LOGS = Path.of("target", "fault-run-it");
    private static final List<String> AGENT_JVM = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /** Compaction (of objects older than 30 s) and deletion of what it replaced happen during the run. */
    private static final List<String> AGENT_ARGUMENTS =
            List.of("--compaction-interval-ms", "3000", "--object-delete-delay-ms", "2000");

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration PRODUCERS_DONE_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
    /** Beyond the fault phase: starting, healing, draining and reading, each bounded by its own timeout. */
    private static final Duration RUN_OVERHEAD_MAX = Duration.ofMinutes(6);

    @TempDir
    Path dir;

    private TestPostgres postgres;
    private InProcessS3 s3;
    private S3FaultProxy proxy;
    private Agents agents;
    private final List<GroupReader> readers = new ArrayList<>();
    private TransactionalRun transactional;
    private final long startedAt = System.nanoTime();

    @AfterEach
    void stopEverything() throws Exception {
        for (GroupReader reader : readers) {
            reader.stop(Duration.ofSeconds(15));
        }
        if (transactional != null) {
            transactional.close();
        }
        if (agents != null) {
            agents.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (s3 != null) {
            s3.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void nothingAcknowledgedIsLostDuplicatedReorderedOrChangedUnderFaults() {
        long seed = seed();
        Duration faultPhase = Duration.ofSeconds(Long.getLong("faults.seconds", FAULT_SECONDS));
        String replay = "replay with -Dfaults.seed=" + seed + " -Dfaults.seconds=" + faultPhase.toSeconds()
                + "; agent logs in " + LOGS.toAbsolutePath();
        System.out.println("FaultRunIT seed=" + seed + " (" + replay + ")");
        assertTimeoutPreemptively(
                faultPhase.plus(RUN_OVERHEAD_MAX),
                () -> {
                    try {
                        run(seed, faultPhase);
                    } catch (Exception | AssertionError e) {
                        throw new AssertionError("fault run with seed " + seed + " failed (" + replay + "): " + e, e);
                    }
                },
                () -> "fault run with seed " + seed + " did not finish (" + replay + ")");
    }

    private void run(long seed, Duration faultPhase) throws Exception {
        String metadataUrl = startStores(seed);
        agents = new Agents(
                AGENTS, dir, LOGS, metadataUrl, proxy.endpoint(), BUCKET, AGENT_JVM, AGENT_ARGUMENTS, START_TIMEOUT);
        agents.startAll();
        FaultSchedule schedule = FaultSchedule.plan(seed, faultPhase, AGENTS);
        System.out.println("FaultRunIT seed=" + seed + " schedule=" + schedule);
        try (Admin admin = Records.admin(agents.bootstrap())) {
            createTopic(admin, TOPIC);
            createTopic(admin, TransactionalRun.TOPIC);
            for (int id = 1; id <= READERS; id++) {
                readers.add(new GroupReader(id, agents.bootstrap(), GROUP, TOPIC));
            }
            readers.forEach(GroupReader::start);
            transactional = new TransactionalRun(agents, PARTITIONS, seed);
            transactional.startReaders();
            awaitStableGroup(admin, GROUP, READERS);
            awaitStableGroup(admin, transactional.group(), transactional.readers());
            List<PacedProducer> producers = new ArrayList<>();
            for (int id = 1; id <= PRODUCERS; id++) {
                producers.add(new PacedProducer(
                        id,
                        agents.bootstrap(),
                        TOPIC,
                        (int) (RECORDS_PER_SECOND * faultPhase.toSeconds()),
                        RECORDS_PER_SECOND));
            }
            producers.forEach(PacedProducer::start);
            transactional.startProducers();

            Nemesis nemesis = new Nemesis(schedule, agents, postgres, metadataUrl, proxy);
            nemesis.run(faultPhase);
            System.out.println("FaultRunIT seed=" + seed + " timeline=" + nemesis.timeline());
            boolean transactionsEnded = transactional.stopProducers();

            for (PacedProducer producer : producers) {
                assertThat(producer.awaitDone(PRODUCERS_DONE_TIMEOUT))
                        .as("producer finished after the heal")
                        .isTrue();
            }
            List<Ack> acks = producers.stream()
                    .flatMap(p -> p.acks().stream())
                    .map(a -> new Ack(a.value(), a.partition(), a.offset()))
                    .toList();
            boolean drained = Await.within(DRAIN_TIMEOUT, () -> drained(admin, acks));
            boolean txnDrained = Await.within(DRAIN_TIMEOUT, () -> transactional.drained(admin));
            for (GroupReader reader : readers) {
                assertThat(reader.stop(Duration.ofSeconds(30)))
                        .as("reader stopped")
                        .isTrue();
            }
            assertThat(transactional.stopReaders(Duration.ofSeconds(30)))
                    .as("read_committed readers stopped")
                    .isTrue();
            List<FinalRead.Outcome> reads = List.of(
                    FinalRead.read("final-read-1", agents.bootstrap(1), TOPIC, PARTITIONS, READ_TIMEOUT),
                    FinalRead.read("final-read-2", agents.bootstrap(AGENTS), TOPIC, PARTITIONS, READ_TIMEOUT));
            List<String> failed =
                    producers.stream().flatMap(p -> p.failedValues().stream()).toList();
            Result result = FaultRunChecker.check(new History(
                    acks,
                    failed,
                    polls(),
                    reads.stream().map(FinalRead.Outcome::records).toList()));
            List<FinalRead.Outcome> txnReads = transactional.finalReads(READ_TIMEOUT);
            TransactionalRunChecker.Result txnResult = transactional.check(txnReads);
            System.out.println(summary(seed, faultPhase, result, nemesis, drained));
            System.out.println(transactional.summary(seed, txnResult, txnDrained));
            txnResult.examples().forEach((kind, shown) -> System.out.println("FaultRunIT txn " + kind + ": " + shown));
            readers.stream()
                    .flatMap(r -> r.unexpected().stream())
                    .limit(10)
                    .forEach(error -> System.out.println("FaultRunIT consumer error: " + error));
            producers.stream()
                    .flatMap(p -> p.failures().stream())
                    .limit(10)
                    .forEach(failure -> System.out.println("FaultRunIT send failure: " + failure));
            transactional.producerErrors().stream()
                    .limit(20)
                    .forEach(error -> System.out.println("FaultRunIT transactional producer: " + error));
            transactional.readerErrors().stream()
                    .limit(10)
                    .forEach(error -> System.out.println("FaultRunIT read_committed consumer error: " + error));
            assertRun(result, reads, producers);
            assertTransactionalRun(txnResult, txnReads, transactionsEnded);
        }
    }

    private String startStores(long seed) throws Exception {
        postgres = TestPostgres.startPrivate();
        String metadataUrl = postgres.createDatabaseUrl();
        s3 = new InProcessS3(Files.createDirectory(dir.resolve("s3")));
        s3.createBucket(BUCKET);
        proxy = new S3FaultProxy(s3.endpoint(), seed * 31 + 7);
        return metadataUrl;
    }

    private static long seed() {
        String given = System.getProperty("faults.seed");
        return given == null || given.isBlank() ? new SecureRandom().nextLong() : Long.parseLong(given.trim());
    }

    private void createTopic(Admin admin, String topic) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        for (int nodeId : agents.nodeIds()) {
            try (Admin direct = Records.admin(agents.bootstrap(nodeId))) {
                Await.until(
                        "agent " + nodeId + " knows topic " + topic,
                        SETTLE_TIMEOUT,
                        () -> direct.describeTopics(List.of(topic))
                                        .allTopicNames()
                                        .get(10, TimeUnit.SECONDS)
                                        .get(topic)
                                        .partitions()
                                        .size()
                                == PARTITIONS);
            }
        }
    }

    private void awaitStableGroup(Admin admin, String groupId, int members) throws InterruptedException {
        Await.until("group " + groupId + " stable with " + members + " members", SETTLE_TIMEOUT, () -> {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId))
                    .describedGroups()
                    .get(groupId)
                    .get(10, TimeUnit.SECONDS);
            int assigned = group.members().stream()
                    .mapToInt(m -> m.assignment().topicPartitions().size())
                    .sum();
            return group.groupState() == GroupState.STABLE
                    && group.members().size() == members
                    && assigned == PARTITIONS;
        });
    }

    /** Whether the group polled every acknowledged value and committed up to the end of every partition. */
    private boolean drained(Admin admin, List<Ack> acks) throws Exception {
        Set<String> polled = readers.stream()
                .flatMap(r -> r.deliveries().stream())
                .map(GroupReader.Delivery::value)
                .collect(Collectors.toSet());
        if (!acks.stream().allMatch(ack -> polled.contains(ack.value()))) {
            return false;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet().stream()
                .allMatch(end -> committed.containsKey(end.getKey())
                        && committed.get(end.getKey()).offset()
                                == end.getValue().offset());
    }

    private List<Observation> polls() {
        return readers.stream()
                .flatMap(r -> r.deliveries().stream())
                .map(d -> new Observation("reader-" + d.reader(), d.partition(), d.offset(), d.value()))
                .toList();
    }

    private String summary(long seed, Duration faultPhase, Result result, Nemesis nemesis, boolean drained) {
        Map<String, Object> faults = new java.util.LinkedHashMap<>();
        nemesis.injected().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> faults.put(e.getKey().name(), e.getValue()));
        faults.put("pgSessionsTerminated", nemesis.sessionsTerminated());
        proxy.injected().forEach((fault, count) -> faults.put("s3" + fault.name(), count));
        faults.put("s3Requests", proxy.forwarded());
        int polled = readers.stream().mapToInt(r -> r.deliveries().size()).sum();
        int readerErrors = readers.stream().mapToInt(r -> r.unexpected().size()).sum();
        return String.format(
                "FAULT-RUN seed=%d faultSeconds=%d duration=%.1fs %s polled=%d drained=%s"
                        + " readerErrors=%d agentCrashes=%d agentFailedStarts=%d faults=%s",
                seed,
                faultPhase.toSeconds(),
                (System.nanoTime() - startedAt) / 1e9,
                result.counts(),
                polled,
                drained,
                readerErrors,
                agents.crashes().size(),
                agents.failedStarts().size(),
                faults);
    }

    private void assertRun(Result result, List<FinalRead.Outcome> reads, List<PacedProducer> producers) {
        for (FinalRead.Outcome read : reads) {
            assertThat(read.complete())
                    .as("%s reached the end offsets %s", read.reader(), read.endOffsets())
                    .isTrue();
        }
        assertThat(agents.crashes()).as("agents that died on their own").isEmpty();
        // Retriable errors are the clients' to retry; anything else reaching the application is a finding.
        assertThat(readers.stream().flatMap(r -> r.unexpected().stream()).toList())
                .as("consumer errors that are not retriable")
                .isEmpty();
        assertThat(result.acknowledged()).as("acknowledged sends").isPositive();
        assertThat(result.valid())
                .as(
                        "%s; examples: %s; send failures: %s",
                        result.counts(),
                        result.examples(),
                        producers.stream()
                                .flatMap(p -> p.failures().stream())
                                .limit(10)
                                .toList())
                .isTrue();
    }

    private void assertTransactionalRun(
            TransactionalRunChecker.Result result, List<FinalRead.Outcome> reads, boolean transactionsEnded) {
        assertThat(transactionsEnded)
                .as("transactional producers ended their transactions after the heal")
                .isTrue();
        for (FinalRead.Outcome read : reads) {
            assertThat(read.complete())
                    .as("%s reached the end offsets %s", read.reader(), read.endOffsets())
                    .isTrue();
        }
        assertThat(transactional.readerErrors())
                .as("read_committed consumer errors that are not retriable")
                .isEmpty();
        assertThat(result.committed()).as("committed transactions").isPositive();
        // Else the read_committed reads had nothing to leave out, and 0 aborted reads would prove nothing.
        assertThat(result.abortedInLog())
                .as("aborted records the read_uncommitted read saw")
                .isPositive();
        assertThat(result.valid())
                .as("%s; examples: %s", result.counts(), result.examples())
                .isTrue();
    }
}
