package io.floe.simulation;

import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.core.config.TopicConfigs;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.tableflow.config.TableflowConfigs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * One simulation run, a pure function of its seed: builds the stores and a cluster of 1–3 agents,
 * runs producers and consumers through a chaos phase (store faults, crashes, restarts, slow calls,
 * late PUTs, all drawn from the seed), then heals and checks that everything acknowledged is readable
 * once, in order, and that no garbage is left. The invariant checker runs after every step.
 */
public final class Simulation {

    private static final long SECOND = 1_000_000_000L;
    private static final Duration CHAOS = Duration.ofSeconds(20);
    private static final Duration HEAL_DEADLINE = Duration.ofMinutes(5);

    private static final int LOG_READ_EVERY_STEPS = 250;
    /** The share of runs that materialize topic {@code logs} as an Iceberg table (they cost more). */
    private static final double TABLEFLOW_SHARE = 0.2;
    /** The share of runs with transactional producers and read_committed consumers. */
    private static final double TRANSACTIONS_SHARE = 0.15;

    private static final long TRANSACTIONS_SALT = 0x7A5C_7104_5EEDL;
    /**
     * The share of the runs with tables whose Tableflow runs on through the month: its rounds and table
     * maintenance after quiet days cost more than everything else of a month, so the others stop it.
     */
    private static final double TABLES_ALL_MONTH_SHARE = 0.25;

    private static final long TABLES_ALL_MONTH_SALT = 0x7AB1_E5A1_1D0EL;

    static final MaintenanceConfig MAINTENANCE = new MaintenanceConfig(
            Duration.ofSeconds(2),
            64 * 1024,
            16 * 1024,
            Duration.ofSeconds(1),
            256 * 1024,
            Duration.ofSeconds(5),
            MaintenanceConfig.KEY_COMPACTION_BUFFER_BYTES_MIN,
            Duration.ofSeconds(3),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            Duration.ofSeconds(65),
            Duration.ofSeconds(10),
            MaintenanceConfig.PRODUCER_ID_EXPIRATION,
            MaintenanceConfig.TRANSACTIONAL_ID_EXPIRATION);

    private Simulation() {}

    /** Runs seed {@code seed} in a scratch directory under {@code scratch}, which it removes. */
    public static SimulationResult run(long seed, Path scratch) {
        return run(seed, scratch, Control.NONE);
    }

    /** As {@link #run(long, Path)}, with one guarantee removed by {@code control} (negative controls). */
    public static SimulationResult run(long seed, Path scratch, Control control) {
        Path dir;
        try {
            dir = Files.createTempDirectory(scratch, "sim-" + seed + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        World world = new World(seed);
        History history = new History(world);
        try (SqlMetadataStore store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"), world.clock())) {
            AtomicLong logChanges = new AtomicLong();
            OffsetTimeline timeline = new OffsetTimeline(store, StreamsApp.APPLICATION_ID, history);
            Races races = new Races();
            // The checker, made later, sees every commit's true outcome (see Checker#committed).
            AtomicReference<BiConsumer<ObjectCommit, CommitOutcome>> commits = new AtomicReference<>((c, o) -> {});
            SimAgent.TableflowSetup tableflow = world.chance(TABLEFLOW_SHARE)
                    ? new SimAgent.TableflowSetup(
                            "jdbc:sqlite:" + dir.resolve("metadata.db").toAbsolutePath(), dir.resolve("spool"))
                    : null;
            FaultyMetadataStore.StoreObserver observer = new FaultyMetadataStore.StoreObserver() {
                @Override
                public void applied(MetadataOperation operation) {
                    timeline.applied(operation);
                }

                @Override
                public void pendingOffsetsCommitted(
                        String groupId, Map<TopicPartition, CommittedOffset> offsets, TransactionOutcome outcome) {
                    timeline.pendingApplied(groupId, offsets, outcome);
                }

                @Override
                public void committedOffsetsRead(String groupId) {
                    races.committedOffsetsRead(groupId);
                }
            };
            return run(
                    world,
                    history,
                    store,
                    FaultyMetadataStore.observed(
                            store,
                            logChanges::incrementAndGet,
                            (commit, outcome) -> commits.get().accept(commit, outcome),
                            observer),
                    logChanges::get,
                    commits,
                    tableflow,
                    new StreamsApp.Shared(timeline, races),
                    control);
        } catch (World.Runaway runaway) {
            return new SimulationResult(
                    seed,
                    world.fingerprint(),
                    world.steps(),
                    world.nanoTime() / SECOND,
                    0,
                    0,
                    0,
                    0,
                    Map.of(),
                    0,
                    0,
                    0,
                    0,
                    Map.of(),
                    List.of(),
                    Map.of(),
                    Map.of("Progress", List.of(runaway.getMessage())));
        } finally {
            delete(dir);
        }
    }

    private static SimulationResult run(
            World world,
            History history,
            MetadataStore store,
            MetadataStore metadata,
            LongSupplier logChanges,
            AtomicReference<BiConsumer<ObjectCommit, CommitOutcome>> commits,
            SimAgent.TableflowSetup tableflow,
            StreamsApp.Shared streams,
            Control control) {
        MemoryObjectStore objects = new MemoryObjectStore(world.clock());
        if (control == Control.LOSSY_OBJECT_STORE) {
            objects.losePuts(world.random(), 0.05);
        }
        Faults faults = new Faults(world, Faults.Rates.draw(world));
        Node clients = new Node("clients", false);
        Node network = new Node("network", false);
        SimExecutor clientExecutor = new SimExecutor(world, clients, "client", 1);
        SimExecutor networkExecutor = new SimExecutor(world, network, "network", Integer.MAX_VALUE);
        SimExecutor supervisor = new SimExecutor(world, clients, "supervisor", 1);

        // No retention on events and txn: their every record is checked for the whole month.
        Topic events = metadata.createTopic(new NewTopic("events", 3, Map.of(TopicConfigs.RETENTION_MS, "-1")));
        Map<String, String> logsConfigs = new TreeMap<>(Map.of(TopicConfigs.RETENTION_MS, "15000"));
        if (tableflow != null) {
            logsConfigs.putAll(Map.of(
                    TableflowConfigs.ENABLED,
                    "true",
                    TableflowConfigs.FORMAT,
                    "raw",
                    TableflowConfigs.COMMIT_INTERVAL_MS,
                    "1000",
                    TableflowConfigs.MAINTENANCE_INTERVAL_MS,
                    "5000"));
        }
        Topic logs = metadata.createTopic(new NewTopic("logs", 2, logsConfigs));
        List<Topic> topics = List.of(events, logs);
        boolean transactional = control.transactional() || world.seedChance(TRANSACTIONS_SALT, TRANSACTIONS_SHARE);
        // Transactional producers write to a topic of their own and to events, beside the idempotent ones.
        Map<String, String> txnConfigs = new TreeMap<>(logsConfigs);
        txnConfigs.put(TopicConfigs.RETENTION_MS, "-1");
        Topic txn = transactional ? metadata.createTopic(new NewTopic("txn", 2, txnConfigs)) : null;
        List<Topic> transactionalTopics = transactional ? List.of(events, txn) : List.of();
        List<TopicPartition> partitions = partitionsOf(transactional ? List.of(events, logs, txn) : topics);

        int agentCount = 1 + world.random().nextInt(3);
        double killRate =
                world.random().nextDouble() < 0.25 ? 0 : world.random().nextDouble() * 0.3;
        Duration flushInterval = Duration.ofMillis(2 + world.random().nextInt(50));
        Cluster cluster = new Cluster(
                world,
                faults,
                control == Control.COMMIT_STORED_AS_ABORT ? FaultyMetadataStore.abortingCommits(metadata) : metadata,
                objects,
                networkExecutor,
                supervisor,
                flushInterval,
                MAINTENANCE,
                tableflow,
                killRate);
        cluster.start(agentCount);

        List<SimProducer> producers = new ArrayList<>();
        int producerCount = 1 + world.random().nextInt(3);
        for (int id = 1; id <= producerCount; id++) {
            producers.add(new SimProducer(
                    id,
                    world,
                    cluster,
                    history,
                    clientExecutor,
                    control == Control.PRODUCERS_WITHOUT_IDEMPOTENCE ? -1 : metadata.allocateProducerId(),
                    topics,
                    20 + world.random().nextInt(60)));
        }
        List<SimConsumer> consumers = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            consumers.add(new SimConsumer(
                    tp, world, cluster, history, clientExecutor, tp.topic().equals("logs")));
        }
        TransactionChecker transactions = new TransactionChecker(
                metadata, metadata, objects, history, Set.copyOf(partitionsOf(transactionalTopics)));
        List<SimTransactionalProducer> transactionalProducers = new ArrayList<>();
        List<SimConsumer> readCommitted = new ArrayList<>();
        if (transactional) {
            for (int id = 1, count = 1 + world.random().nextInt(2); id <= count; id++) {
                transactionalProducers.add(
                        new SimTransactionalProducer(id, world, cluster, history, clientExecutor, transactionalTopics));
            }
            for (TopicPartition tp : partitionsOf(transactionalTopics)) {
                SimConsumer consumer =
                        new SimConsumer(tp, world, cluster, history, clientExecutor, false, transactions, control);
                transactions.watch(tp, consumer::position);
                readCommitted.add(consumer);
            }
        }
        producers.forEach(SimProducer::start);
        consumers.forEach(SimConsumer::start);
        transactionalProducers.forEach(SimTransactionalProducer::start);
        readCommitted.forEach(SimConsumer::start);

        Checker checker =
                new Checker(metadata, metadata, logChanges, objects, history, partitions, Set.of("logs"), transactions);
        commits.set(checker::committed);
        List<TableChecker> tables = new ArrayList<>();
        if (tableflow != null) {
            for (Topic topic : txn == null ? List.of(logs) : List.of(logs, txn)) {
                tables.add(new TableChecker(
                        SimAgent.catalog(tableflow.catalogUrl(), objects, tableflow.spool()),
                        metadata,
                        history,
                        topic.name(),
                        topic.partitionCount(),
                        transactions));
            }
        }
        Runnable afterEachStep = () -> {
            if (checker.afterStep() && checker.indexChecks() % LOG_READ_EVERY_STEPS == 0) {
                checker.readLog();
                tables.forEach(TableChecker::check);
            }
        };
        List<SimConsumer> allConsumers = new ArrayList<>(consumers);
        allConsumers.addAll(readCommitted);

        world.runUntil(CHAOS.toNanos(), afterEachStep);
        long healedAt = world.nanoTime();
        faults.heal();
        cluster.heal();
        long deadline = healedAt + HEAL_DEADLINE.toNanos();
        while (world.nanoTime() < deadline
                && !(caughtUp(producers, consumers, metadata, partitions)
                        && transactionalProducers.stream().allMatch(SimTransactionalProducer::done)
                        && readCommitted.stream()
                                .allMatch(c -> c.position()
                                        >= metadata.offsets(c.topicPartition()).highWatermark())
                        && tables.stream().allMatch(TableChecker::caughtUp))) {
            world.runUntil(world.nanoTime() + SECOND, afterEachStep);
        }
        checker.readLog();
        if (!producers.stream().allMatch(SimProducer::done)) {
            history.violation(
                    "ProduceAnswered",
                    producers.stream().mapToInt(SimProducer::unanswered).sum() + " batches still unanswered "
                            + HEAL_DEADLINE.toSeconds() + " s after the faults stopped");
        }
        for (SimTransactionalProducer producer : transactionalProducers) {
            if (!producer.done()) {
                history.violation(
                        "ProduceAnswered",
                        "a transactional producer made " + producer.transactions() + " transactions and is not done "
                                + HEAL_DEADLINE.toSeconds() + " s after the faults stopped");
            }
        }
        checkConsumed(history, metadata, partitions, consumers);
        checkConsumed(history, metadata, readCommitted);
        transactions.checkEnded();
        for (TableChecker table : tables) {
            if (!table.caughtUp()) {
                history.violation(
                        "TableCatchesUp",
                        "the table of " + table.topic() + " is at " + table.watermark() + " "
                                + HEAL_DEADLINE.toSeconds() + " s after the faults stopped");
            }
        }
        allConsumers.forEach(SimConsumer::stop);
        // Every transaction that sent offsets ended; their groups have no members from here on.
        transactions.offsetsExpireFrom(
                world.nanoTime()
                        + GroupCoordinatorConfig.defaults().offsetsRetention().toNanos(),
                world::nanoTime);
        StreamsApp app = new StreamsApp(world, cluster, faults, history, store, objects, streams, control);
        for (TopicPartition tp : app.partitions()) {
            boolean changelog = tp.topic().equals(StreamsApp.CHANGELOG);
            checker.watch(List.of(tp), !tp.topic().equals(StreamsApp.INPUT), !changelog, changelog);
            if (!tp.topic().equals(StreamsApp.INPUT)) {
                transactions.watch(List.of(tp));
            }
        }
        LongHorizon horizon = new LongHorizon(
                new LongHorizon.Run(
                        world,
                        cluster,
                        faults,
                        history,
                        store,
                        clientExecutor,
                        checker::afterStep,
                        checker::readLog,
                        () -> tables.forEach(TableChecker::check)),
                app,
                world.seedChance(TABLES_ALL_MONTH_SALT, TABLES_ALL_MONTH_SHARE));
        horizon.run();
        horizon.figures().put("group offsets expired (excused)", transactions.expiredOffsetsExcused());
        checker.readLog();
        checker.checkGarbage(horizon.lastQuietBegan());
        horizon.figures().put("young unreferenced objects", checker.youngUnreferenced());
        for (TableChecker table : tables) {
            table.check();
            table.close();
        }
        cluster.release();

        Map<String, Integer> injected = new TreeMap<>(faults.injected());
        return new SimulationResult(
                world.seed(),
                world.fingerprint(),
                world.steps(),
                world.nanoTime() / SECOND,
                agentCount,
                cluster.starts(),
                history.sentValues().size(),
                history.ackedValues().size() + history.ackedWithoutOffset().size(),
                history.transactionCounts(),
                checker.excusedBelowLogStart(),
                checker.indexChecks(),
                checker.logReads(),
                tables.stream().mapToLong(TableChecker::rowsChecked).sum(),
                injected,
                world.uncaught(),
                horizon.figures(),
                history.violations());
    }

    private static List<TopicPartition> partitionsOf(List<Topic> topics) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (Topic topic : topics) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                partitions.add(new TopicPartition(topic.name(), p));
            }
        }
        return partitions;
    }

    /** AckedFetchable for read_committed consumers: once every transaction ended, they reach the high watermark. */
    private static void checkConsumed(History history, MetadataStore metadata, List<SimConsumer> readCommitted) {
        for (SimConsumer consumer : readCommitted) {
            LogOffsets end = metadata.offsets(consumer.topicPartition());
            if (consumer.position() < end.highWatermark()) {
                history.violation(
                        "AckedFetchable",
                        "the read_committed consumer of " + consumer.topicPartition() + " is at " + consumer.position()
                                + " of " + end + " after the heal phase; its last answer: " + consumer.lastAnswer());
            }
        }
    }

    private static boolean caughtUp(
            List<SimProducer> producers,
            List<SimConsumer> consumers,
            MetadataStore metadata,
            List<TopicPartition> partitions) {
        if (!producers.stream().allMatch(SimProducer::done)) {
            return false;
        }
        for (int i = 0; i < partitions.size(); i++) {
            if (consumers.get(i).position()
                    < metadata.offsets(partitions.get(i)).highWatermark()) {
                return false;
            }
        }
        return true;
    }

    /** AckedFetchable: every acknowledged record still in the log was read by the consumers. */
    private static void checkConsumed(
            History history, MetadataStore metadata, List<TopicPartition> partitions, List<SimConsumer> consumers) {
        for (int i = 0; i < partitions.size(); i++) {
            long end = metadata.offsets(partitions.get(i)).highWatermark();
            if (consumers.get(i).position() < end) {
                history.violation(
                        "AckedFetchable",
                        "the consumer of " + partitions.get(i) + " is at "
                                + consumers.get(i).position() + " of " + end
                                + " after the heal phase; its last answer: "
                                + consumers.get(i).lastAnswer());
            }
        }
        history.ackedValues().forEach((value, position) -> {
            long logStart = metadata.offsets(position.topicPartition()).logStartOffset();
            if (position.offset() >= logStart && !history.consumedValues().contains(value)) {
                history.violation("AckedFetchable", value + " acknowledged at " + position + " was never fetched");
            }
        });
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
