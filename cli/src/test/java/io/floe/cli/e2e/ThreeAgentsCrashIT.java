package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.agent.InProcessS3;
import io.floe.testkit.postgres.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance test of many agents: three agents in separate JVMs share one PostgreSQL database and
 * one S3 bucket. Two idempotent producers bootstrap at two of them, a consumer group of two
 * bootstraps at the third, and when 40% of the records are acknowledged the agent that coordinates
 * the group (and leads partitions) is killed with SIGKILL. Producers and consumers must carry on
 * through the survivors. {@link CrashRunChecks} then checks that no acknowledged record was lost or
 * stored twice, that each partition kept its order, that the group went on after the kill, and that
 * it read again only what a rebalance may deliver again. The agents' logs are kept in
 * {@code target/three-agents-crash-it}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ThreeAgentsCrashIT {

    private static final String BUCKET = "floe-data";
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;
    private static final String GROUP = "order-readers";
    private static final int RECORDS_PER_PRODUCER = 5_000;
    private static final int RECORDS_PER_SECOND = 250;
    private static final double KILL_WHEN_ACKED = 0.4;
    private static final Path LOGS = Path.of("target", "three-agents-crash-it");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    private static final long POLL_INTERVAL_MS = 100;
    private static final List<String> AGENT_JVM = List.of("-Xmx512m");

    @TempDir
    Path dir;

    private InProcessS3 s3;
    private final List<Node> nodes = new ArrayList<>();
    private final List<GroupReader> readers = new ArrayList<>();
    private final long startedAt = System.nanoTime();
    private final List<String> timeline = new ArrayList<>();

    /** One agent process, with the ports it listens on. */
    private record Node(int nodeId, int kafkaPort, int httpPort, AgentProcess process) {
        String bootstrap() {
            return "127.0.0.1:" + kafkaPort;
        }
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        for (GroupReader reader : readers) {
            reader.stop(Duration.ofSeconds(15));
        }
        nodes.forEach(node -> node.process().close());
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void anAgentKilledMidRunLosesNothingDuplicatesNothingAndTheGroupGoesOn() throws Exception {
        startAgents();
        mark("agents up");
        try (Admin admin = Records.admin(nodes.stream().map(Node::bootstrap).collect(Collectors.joining(",")))) {
            createTopic(admin);
            readers.add(new GroupReader(1, nodes.get(2).bootstrap(), GROUP, TOPIC));
            readers.add(new GroupReader(2, nodes.get(2).bootstrap(), GROUP, TOPIC));
            readers.forEach(GroupReader::start);
            awaitStableGroup(admin, 2);
            mark("group stable");
            Node victim = victim(admin);

            List<PacedProducer> producers = List.of(
                    new PacedProducer(1, nodes.get(0).bootstrap(), TOPIC, RECORDS_PER_PRODUCER, RECORDS_PER_SECOND),
                    new PacedProducer(2, nodes.get(1).bootstrap(), TOPIC, RECORDS_PER_PRODUCER, RECORDS_PER_SECOND));
            producers.forEach(PacedProducer::start);
            int total = producers.size() * RECORDS_PER_PRODUCER;
            await(
                    "40% of the records acknowledged",
                    SETTLE_TIMEOUT,
                    () -> producers.stream().mapToInt(PacedProducer::ackedCount).sum() >= total * KILL_WHEN_ACKED);
            victim.process().kill();
            long killedAt = System.nanoTime();
            mark("agent " + victim.nodeId() + " killed");
            for (PacedProducer producer : producers) {
                assertThat(producer.awaitDone(Duration.ofSeconds(120)))
                        .as("producer finished")
                        .isTrue();
            }
            List<PacedProducer.Ack> acks =
                    producers.stream().flatMap(p -> p.acks().stream()).toList();
            mark("producers done");
            awaitDrained(admin, acks);
            mark("group drained");
            ConsumerGroupDescription group = describeGroup(admin);
            for (GroupReader reader : readers) {
                assertThat(reader.stop(Duration.ofSeconds(30)))
                        .as("reader stopped")
                        .isTrue();
            }

            Node survivor =
                    nodes.stream().filter(node -> node != victim).findFirst().orElseThrow();
            List<ConsumerRecord<byte[], byte[]>> log =
                    Records.readToEnd(survivor.bootstrap(), partitions(), SETTLE_TIMEOUT);
            mark("log read");
            CrashRunChecks run = new CrashRunChecks(
                    total,
                    acks,
                    producers.stream().flatMap(p -> p.failures().stream()).toList(),
                    log,
                    readers,
                    killedAt);
            System.out.println(run.summary() + " victim=" + victim.nodeId() + " timeline=" + timeline);
            run.assertAll(committedOffsets(admin), endOffsets(admin), group, victim.nodeId());
        }
    }

    private void mark(String phase) {
        timeline.add(String.format("%s at %.1fs", phase, (System.nanoTime() - startedAt) / 1e9));
    }

    private void startAgents() throws Exception {
        String metadata = TestPostgres.get().createDatabaseUrl();
        s3 = new InProcessS3(Files.createDirectory(dir.resolve("s3")));
        s3.createBucket(BUCKET);
        Files.createDirectories(LOGS);
        mark("stores up");
        for (int nodeId = 1; nodeId <= 3; nodeId++) {
            int kafkaPort = InProcessFloe.freePort();
            int httpPort = InProcessFloe.freePort();
            Path log = LOGS.resolve("agent-" + nodeId + ".log");
            Files.deleteIfExists(log);
            AgentProcess process = AgentProcess.start(
                    AGENT_JVM,
                    List.of(
                            "--node-id",
                            Integer.toString(nodeId),
                            "--listen",
                            "127.0.0.1:" + kafkaPort,
                            "--http-listen",
                            "127.0.0.1:" + httpPort,
                            "--data-dir",
                            dir.resolve("agent-" + nodeId).toString(),
                            "--metadata",
                            metadata,
                            "--objects",
                            "s3://" + BUCKET + "/three-agents",
                            "--s3-endpoint",
                            s3.endpoint().toString(),
                            "--s3-path-style",
                            "true",
                            "--s3-access-key-id",
                            InProcessS3.ACCESS_KEY),
                    // The secret from the environment, as the README advises: a flag shows in the process list.
                    Map.of("FLOE_S3_SECRET_ACCESS_KEY", InProcessS3.SECRET_KEY),
                    log);
            nodes.add(new Node(nodeId, kafkaPort, httpPort, process));
        }
        for (Node node : nodes) {
            awaitHealthy(node);
        }
        mark("agents healthy");
        // Each agent answers Metadata from its own view of the membership: all of them must list all three.
        for (Node node : nodes) {
            try (Admin admin = Records.admin(node.bootstrap())) {
                await(
                        "agent " + node.nodeId() + " lists 3 brokers",
                        START_TIMEOUT,
                        () -> admin.describeCluster()
                                        .nodes()
                                        .get(10, TimeUnit.SECONDS)
                                        .size()
                                == 3);
            }
        }
    }

    private void awaitHealthy(Node node) throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/health"))
                .timeout(Duration.ofSeconds(5))
                .build();
        await("agent " + node.nodeId() + " healthy", START_TIMEOUT, () -> {
            assertThat(node.process().isAlive())
                    .as(
                            "agent %d runs; its log ends with:%n%s",
                            node.nodeId(), node.process().logTail(40))
                    .isTrue();
            try {
                return http.send(health, HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            }
        });
    }

    private void createTopic(Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        for (Node node : nodes) {
            try (Admin direct = Records.admin(node.bootstrap())) {
                await(
                        "agent " + node.nodeId() + " knows topic " + TOPIC,
                        SETTLE_TIMEOUT,
                        () -> topic(direct).partitions().size() == PARTITIONS);
            }
        }
    }

    private void awaitStableGroup(Admin admin, int members) throws Exception {
        await(
                "group " + GROUP + " stable with " + members + " members sharing " + PARTITIONS + " partitions",
                SETTLE_TIMEOUT,
                () -> {
                    ConsumerGroupDescription group = describeGroup(admin);
                    int assigned = group.members().stream()
                            .mapToInt(m -> m.assignment().topicPartitions().size())
                            .sum();
                    return group.groupState() == GroupState.STABLE
                            && group.members().size() == members
                            && assigned == PARTITIONS;
                });
    }

    /** The group's coordinator if it leads a partition, otherwise the agent leading the most partitions. */
    private Node victim(Admin admin) throws Exception {
        int coordinator = describeGroup(admin).coordinator().id();
        List<Integer> leaders =
                topic(admin).partitions().stream().map(p -> p.leader().id()).toList();
        Map<Integer, Long> led = leaders.stream().collect(Collectors.groupingBy(id -> id, Collectors.counting()));
        int victim = led.getOrDefault(coordinator, 0L) > 0
                ? coordinator
                : led.entrySet().stream()
                        .max(Map.Entry.comparingByValue())
                        .orElseThrow()
                        .getKey();
        System.out.println("coordinator=" + coordinator + " leaders=" + leaders + " killing=" + victim);
        return nodes.stream()
                .filter(node -> node.nodeId() == victim)
                .findFirst()
                .orElseThrow();
    }

    /** Waits until the group consumed every acknowledged record and committed offsets up to the end of the log. */
    private void awaitDrained(Admin admin, List<PacedProducer.Ack> acks) throws Exception {
        await("the group consumed and committed every acknowledged record", SETTLE_TIMEOUT, () -> {
            Set<String> consumed = readers.stream()
                    .flatMap(r -> r.deliveries().stream())
                    .map(GroupReader.Delivery::value)
                    .collect(Collectors.toSet());
            return acks.stream().allMatch(ack -> consumed.contains(ack.value()))
                    && committedOffsets(admin).equals(endOffsets(admin));
        });
    }

    private static ConsumerGroupDescription describeGroup(Admin admin) throws Exception {
        return admin.describeConsumerGroups(List.of(GROUP))
                .describedGroups()
                .get(GROUP)
                .get(10, TimeUnit.SECONDS);
    }

    private static TopicDescription topic(Admin admin) throws Exception {
        return admin.describeTopics(List.of(TOPIC))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(TOPIC);
    }

    /** The group's committed offset of every partition, 0 where it committed none. */
    private static Map<Integer, Long> committedOffsets(Admin admin) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        Map<Integer, Long> offsets = new HashMap<>();
        for (TopicPartition partition : partitions()) {
            OffsetAndMetadata offset = committed.get(partition);
            offsets.put(partition.partition(), offset == null ? 0L : offset.offset());
        }
        return offsets;
    }

    private static Map<Integer, Long> endOffsets(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions().forEach(partition -> latest.put(partition, OffsetSpec.latest()));
        Map<Integer, Long> offsets = new HashMap<>();
        admin.listOffsets(latest)
                .all()
                .get(10, TimeUnit.SECONDS)
                .forEach((partition, info) -> offsets.put(partition.partition(), info.offset()));
        return offsets;
    }

    private static List<TopicPartition> partitions() {
        return IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(TOPIC, p))
                .toList();
    }

    /** A condition polled until it holds; an exception counts as "not yet" until the timeout. */
    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(String what, Duration timeout, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (Exception notYet) {
                last = notYet;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(
                        "timed out after " + timeout + " waiting until " + what
                                + (last == null ? "" : "; last error: " + last) + "; agent logs in "
                                + LOGS.toAbsolutePath(),
                        last);
            }
            Thread.sleep(POLL_INTERVAL_MS); // a poll interval: the condition decides, not the time
        }
    }
}
