package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.testkit.postgres.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Defect 6 of issue 16, from outside with real clients: three agents in separate JVMs on one
 * PostgreSQL database, started without {@code --node-id}, and a consumer group of three members
 * bootstrapped at different agents, committing after every poll. While an agent joins, the group's
 * coordinator is paused (SIGSTOP, then SIGCONT after its leases ran out), then killed (SIGKILL) while
 * a fourth agent starts, and then the next coordinator leaves (SIGTERM), no partition may be owned by two members at once (as their rebalance listeners report
 * it) and no committed offset may move backwards (as the database holds them, read every 50 ms); in
 * the end the group has committed every record. Agents' logs are kept in
 * {@code target/group-fencing-it}.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class GroupFencingIT {

    private static final String TOPIC = "payments";
    private static final int PARTITIONS = 6;
    private static final String GROUP = "payment-readers";
    private static final int MEMBERS = 3;
    private static final Path LOGS = Path.of("target", "group-fencing-it");
    private static final List<String> AGENT_JVM = List.of("-Xmx384m");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** How long the group may take to consume and commit again after a fault (a new coordinator waits a session). */
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(90);
    /** Longer than the agents' leases (6 s): the paused coordinator's node id and group leases run out. */
    private static final Duration PAUSE = Duration.ofSeconds(12);

    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(90);
    private static final long POLL_INTERVAL_MS = 100;

    @TempDir
    Path dir;

    private final List<Agent> agents = new ArrayList<>();
    private final List<Member> members = new ArrayList<>();
    private final Ownership ownership = new Ownership();
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final long startedAt = System.nanoTime();
    private final List<String> timeline = new CopyOnWriteArrayList<>();
    private OffsetWatch offsets;
    private Thread producer;

    /** One agent process and its ports. */
    private record Agent(String name, int kafkaPort, int httpPort, AgentProcess process) {
        String bootstrap() {
            return "127.0.0.1:" + kafkaPort;
        }
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        producing.set(false);
        if (producer != null) {
            producer.join(TimeUnit.SECONDS.toMillis(30));
        }
        for (Member member : members) {
            member.stop();
        }
        if (offsets != null) {
            offsets.stop();
        }
        for (Agent agent : agents) {
            try {
                agent.process().resume();
            } catch (IOException gone) {
                // not running any more
            }
            agent.process().close();
        }
    }

    @Test
    void agentsWithoutNodeIdsNeverSplitAGroupWhileAgentsJoinPauseAndLeave() throws Exception {
        String jdbcUrl = TestPostgres.get().createDatabase();
        Files.createDirectories(LOGS);
        boolean drained;
        agents.add(startAgent("a", jdbcUrl));
        agents.add(startAgent("b", jdbcUrl));
        for (Agent agent : agents) {
            awaitHealthy(agent);
        }
        mark("agents a, b up");
        try (Admin admin = Records.admin(agents.get(0).bootstrap())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            offsets = new OffsetWatch(jdbcUrl);
            offsets.start();
            producer = startProducer(agents.get(0).bootstrap());
            for (int id = 1; id <= MEMBERS; id++) {
                Member member = new Member(id, agents.get(id % 2).bootstrap(), ownership);
                members.add(member);
                member.start();
            }
            await(
                    "every partition owned and committed",
                    START_TIMEOUT,
                    () -> ownership.owned() == PARTITIONS && offsets.latest().size() == PARTITIONS);
            mark("group consuming");
            settle();

            agents.add(startAgent("c", jdbcUrl));
            awaitHealthy(agents.get(2));
            mark("agent c joined");
            settle();

            Agent coordinator = coordinatorOf(admin);
            coordinator.process().pause();
            mark("coordinator " + coordinator.name() + " paused");
            TimeUnit.MILLISECONDS.sleep(PAUSE.toMillis()); // the fault's length, not a synchronization
            coordinator.process().resume();
            mark("coordinator " + coordinator.name() + " resumed");
            settle();

            Agent killed = coordinatorOf(admin);
            killed.process().kill();
            mark("coordinator " + killed.name() + " killed");
            agents.add(startAgent("d", jdbcUrl));
            awaitHealthy(agents.get(3));
            mark("agent d started");
            settle();

            Agent leaving = coordinatorOf(admin);
            assertThat(leaving.process().terminate(60))
                    .as("agent %s stopped on SIGTERM", leaving.name())
                    .isTrue();
            mark("agent " + leaving.name() + " left");
            settle();

            producing.set(false);
            producer.join(TimeUnit.SECONDS.toMillis(30));
            Agent survivor = agents.stream()
                    .filter(agent -> agent.process().isAlive())
                    .findFirst()
                    .orElseThrow();
            Map<Integer, Long> ends = endOffsets(survivor);
            mark("producer stopped, ends " + ends);
            drained = awaitQuietly(
                    "the group committed every record",
                    DRAIN_TIMEOUT,
                    () -> offsets.latest().equals(ends));
            mark("group drained: " + drained + ", committed " + offsets.latest());
        }
        System.out.println("GroupFencingIT timeline=" + timeline + " assignments=" + ownership.assignments()
                + " commits=" + offsets.changes() + " regressions=" + offsets.regressions());
        // Safety first: a split group may also never drain, but what it broke is the point.
        assertThat(ownership.violations())
                .as("partitions owned by two members at once")
                .isEmpty();
        assertThat(offsets.regressions())
                .as("committed offsets that moved backwards")
                .isEmpty();
        assertThat(drained)
                .as("the group committed every record within " + DRAIN_TIMEOUT)
                .isTrue();
        assertThat(members)
                .allSatisfy(member ->
                        assertThat(member.failure()).as("member %d", member.id).isNull());
    }

    // ----- agents

    private Agent startAgent(String name, String jdbcUrl) throws IOException {
        int kafkaPort = InProcessFloe.freePort();
        int httpPort = InProcessFloe.freePort();
        Path log = LOGS.resolve("agent-" + name + ".log");
        Files.deleteIfExists(log);
        String databaseName = jdbcUrl.substring(jdbcUrl.lastIndexOf('/') + 1);
        AgentProcess process = AgentProcess.start(
                AGENT_JVM,
                List.of(
                        "--listen", "127.0.0.1:" + kafkaPort,
                        "--http-listen", "127.0.0.1:" + httpPort,
                        "--data-dir", dir.resolve("agent-" + name).toString(),
                        "--metadata",
                                "postgresql://" + TestPostgres.USER + ":" + TestPostgres.PASSWORD + "@127.0.0.1:"
                                        + TestPostgres.get().port() + "/" + databaseName,
                        "--objects", "file:" + dir.resolve("objects"),
                        "--tableflow", "false"),
                Map.of(),
                log);
        return new Agent(name, kafkaPort, httpPort, process);
    }

    private void awaitHealthy(Agent agent) throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.httpPort() + "/health"))
                .timeout(Duration.ofSeconds(5))
                .build();
        await("agent " + agent.name() + " healthy", START_TIMEOUT, () -> {
            assertThat(agent.process().isAlive())
                    .as(
                            "agent %s runs; its log ends with:%n%s",
                            agent.name(), agent.process().logTail(40))
                    .isTrue();
            try {
                return http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /** The agent the group's coordinator lookup names now (by its port). */
    private Agent coordinatorOf(Admin admin) throws Exception {
        Node node = admin.describeConsumerGroups(List.of(GROUP))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(GROUP)
                .coordinator();
        mark("coordinator is node " + node.id() + " at port " + node.port());
        return agents.stream()
                .filter(agent -> agent.kafkaPort() == node.port())
                .findFirst()
                .orElseThrow();
    }

    private static Map<Integer, Long> endOffsets(Agent agent) throws Exception {
        try (Admin admin = Records.admin(agent.bootstrap())) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            IntStream.range(0, PARTITIONS).forEach(p -> latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest()));
            Map<Integer, Long> ends = new TreeMap<>();
            admin.listOffsets(latest)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((partition, info) -> ends.put(partition.partition(), info.offset()));
            return ends;
        }
    }

    // ----- clients

    private Thread startProducer(String bootstrap) {
        Thread thread = new Thread(
                () -> {
                    try (KafkaProducer<byte[], byte[]> producer = Records.producer(bootstrap, Map.of())) {
                        long sequence = 0;
                        while (producing.get()) {
                            byte[] value = Records.bytes("payment-" + sequence);
                            producer.send(new ProducerRecord<>(TOPIC, (int) (sequence % PARTITIONS), null, value));
                            sequence++;
                            if (sequence % 20 == 0) {
                                producer.flush();
                                TimeUnit.MILLISECONDS.sleep(POLL_INTERVAL_MS); // pacing: about 200 records a second
                            }
                        }
                        producer.flush();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "producer");
        thread.start();
        return thread;
    }

    /** Which member owns each partition, from the members' rebalance listeners; an overlap is a violation. */
    static final class Ownership {
        private final Map<Integer, Integer> owners = new ConcurrentHashMap<>();
        private final List<String> violations = new CopyOnWriteArrayList<>();
        private final AtomicLong assignments = new AtomicLong();

        synchronized void assigned(int member, Collection<TopicPartition> partitions) {
            for (TopicPartition partition : partitions) {
                Integer other = owners.putIfAbsent(partition.partition(), member);
                assignments.incrementAndGet();
                if (other != null && other != member) {
                    violations.add("partition " + partition.partition() + " assigned to member " + member
                            + " while member " + other + " owns it");
                    owners.put(partition.partition(), member);
                }
            }
        }

        synchronized void released(int member, Collection<TopicPartition> partitions) {
            partitions.forEach(partition -> owners.remove(partition.partition(), member));
        }

        int owned() {
            return owners.size();
        }

        long assignments() {
            return assignments.get();
        }

        List<String> violations() {
            return List.copyOf(violations);
        }
    }

    /** One member of the group on its own thread: polls, commits after every poll, reports ownership. */
    static final class Member implements ConsumerRebalanceListener {
        final int id;
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Ownership ownership;
        private final Thread thread;
        private volatile Throwable failure;

        Member(int id, String bootstrap, Ownership ownership) {
            this.id = id;
            this.ownership = ownership;
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, "member-" + id);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
            props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "20000");
            props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
            props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
            props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "2000");
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            this.consumer = new KafkaConsumer<>(props);
            this.thread = new Thread(this::run, "member-" + id);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            consumer.wakeup();
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }

        Throwable failure() {
            return failure;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            ownership.assigned(id, partitions);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            ownership.released(id, partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            ownership.released(id, partitions);
        }

        private void run() {
            try (consumer) {
                consumer.subscribe(List.of(TOPIC), this);
                while (true) {
                    try {
                        consumer.poll(Duration.ofMillis(POLL_INTERVAL_MS));
                        // A short timeout: a member stuck in a commit could not give up its partitions.
                        consumer.commitSync(Duration.ofSeconds(2));
                    } catch (WakeupException stop) {
                        throw stop;
                    } catch (KafkaException retriable) {
                        // CommitFailed, RebalanceInProgress, timeouts while the coordinator moves: poll again.
                    }
                }
            } catch (WakeupException stopped) {
                ownership.released(id, consumer.assignment());
            } catch (RuntimeException e) {
                failure = e;
            }
        }
    }

    /** The group's committed offsets as the database holds them, read every 50 ms; a decrease is a regression. */
    static final class OffsetWatch {
        private final String jdbcUrl;
        private final Map<Integer, Long> latest = new ConcurrentHashMap<>();
        private final List<String> regressions = new CopyOnWriteArrayList<>();
        private final AtomicLong changes = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread = new Thread(this::run, "offset-watch");

        OffsetWatch(String jdbcUrl) {
            this.jdbcUrl = jdbcUrl;
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }

        Map<Integer, Long> latest() {
            return new TreeMap<>(latest);
        }

        List<String> regressions() {
            return List.copyOf(regressions);
        }

        long changes() {
            return changes.get();
        }

        private void run() {
            try (Connection connection =
                    DriverManager.getConnection(jdbcUrl, TestPostgres.USER, TestPostgres.PASSWORD)) {
                while (running.get()) {
                    try {
                        read(connection);
                    } catch (SQLException tableNotYetThere) {
                        // the agents create the schema when they start
                    }
                    TimeUnit.MILLISECONDS.sleep(50); // the watch's sampling interval
                }
            } catch (SQLException | InterruptedException e) {
                regressions.add("the offset watch stopped: " + e);
            }
        }

        private void read(Connection connection) throws SQLException {
            try (PreparedStatement select = connection.prepareStatement("SELECT partition_index, committed_offset"
                    + " FROM group_offsets WHERE group_id = ? AND topic_name = ?")) {
                select.setString(1, GROUP);
                select.setString(2, TOPIC);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        int partition = rows.getInt(1);
                        long offset = rows.getLong(2);
                        Long before = latest.put(partition, offset);
                        if (before != null && offset < before) {
                            regressions.add("partition " + partition + " went from " + before + " to " + offset);
                        }
                        if (before == null || offset != before) {
                            changes.incrementAndGet();
                        }
                    }
                }
            }
        }
    }

    // ----- waiting

    /** Waits until the group owns every partition again and has committed progress on them since the call. */
    private void settle() throws InterruptedException {
        long commitsBefore = offsets.changes();
        await(
                "the group owning every partition and committing again",
                SETTLE_TIMEOUT,
                () -> ownership.owned() == PARTITIONS && offsets.changes() >= commitsBefore + PARTITIONS);
    }

    private void mark(String phase) {
        timeline.add(String.format("%s at %.1fs", phase, (System.nanoTime() - startedAt) / 1e9));
    }

    private static boolean awaitQuietly(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        try {
            await(what, timeout, condition);
            return true;
        } catch (AssertionError timedOut) {
            return false;
        }
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(POLL_INTERVAL_MS); // a poll interval: the condition decides
        }
    }
}
