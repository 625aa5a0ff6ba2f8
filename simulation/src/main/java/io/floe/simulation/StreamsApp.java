package io.floe.simulation;

import io.floe.core.config.TopicConfigs;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Kafka Streams application with {@code exactly_once_v2} over three topics: {@code input} (written by
 * idempotent producers in bursts, kept seven days), {@code output} (one record per input record, kept
 * seven days) and {@code changelog} (its state store's changelog: compacted only, as Streams creates
 * it, so nothing but key compaction ever removes its batches and markers). Two or three stream threads
 * ({@link StreamsTask}) share the input partitions through the consumer group {@value #APPLICATION_ID}.
 * The application starts, stops cleanly (before a quiet week, as a deployment would) and starts again
 * with threads of the same transactional ids.
 */
final class StreamsApp {

    static final String APPLICATION_ID = "app";
    static final String INPUT = "input";
    static final String OUTPUT = "output";
    static final String CHANGELOG = "changelog";
    /** Kafka's default {@code retention.ms}: seven days. */
    static final String RETENTION_MS = "604800000";
    /** The changelog's {@code max.compaction.lag.ms}: a day, so a dirty changelog is cleaned within one. */
    static final String MAX_COMPACTION_LAG_MS = "86400000";
    /**
     * The changelog's {@code segment.ms}: an hour (a Streams application may set it), so a quiet period
     * always rolls the segment its last burst wrote and only the newest burst stays uncleaned.
     */
    static final long SEGMENT_MS = 3_600_000L;

    private final World world;
    private final Cluster cluster;
    private final Faults faults;
    private final History history;
    private final OffsetTimeline timeline;
    private final Races races;
    private final StreamsChecker checker;
    private final Map<String, Topic> topics = new TreeMap<>();
    private final List<TopicPartition> inputPartitions = new ArrayList<>();
    private final int threads;
    private final int stateKeys;
    private final int sessionTimeoutMs;
    private final int transactionTimeoutMs;
    private final List<StreamsTask> running = new ArrayList<>();
    private final Map<String, Integer> startedOver = new TreeMap<>();
    private int committed;
    private int aborted;
    private long coordinatorPauseNanos;
    private final Control control;

    /**
     * What the shared store's observer reports to, made before the store: the group's offset timeline
     * and the races waiting for its reads.
     */
    record Shared(OffsetTimeline timeline, Races races) {}

    /** {@code metadata}: the shared store itself, read and written without faults (topics, the checks). */
    StreamsApp(
            World world,
            Cluster cluster,
            Faults faults,
            History history,
            MetadataStore metadata,
            MemoryObjectStore objects,
            Shared shared,
            Control control) {
        this.control = control;
        this.world = world;
        this.cluster = cluster;
        this.faults = faults;
        this.history = history;
        this.timeline = shared.timeline();
        this.races = shared.races();
        int partitions = 2 + world.random().nextInt(2);
        topics.put(
                INPUT,
                metadata.createTopic(new NewTopic(INPUT, partitions, Map.of(TopicConfigs.RETENTION_MS, RETENTION_MS))));
        topics.put(
                OUTPUT,
                metadata.createTopic(
                        new NewTopic(OUTPUT, partitions, Map.of(TopicConfigs.RETENTION_MS, RETENTION_MS))));
        topics.put(
                CHANGELOG,
                metadata.createTopic(new NewTopic(
                        CHANGELOG,
                        partitions,
                        Map.of(
                                TopicConfigs.CLEANUP_POLICY,
                                "compact",
                                TopicConfigs.MAX_COMPACTION_LAG_MS,
                                MAX_COMPACTION_LAG_MS,
                                TopicConfigs.SEGMENT_MS,
                                Long.toString(SEGMENT_MS)))));
        for (int p = 0; p < partitions; p++) {
            inputPartitions.add(new TopicPartition(INPUT, p));
        }
        this.threads = 2 + world.random().nextInt(2);
        this.stateKeys = 2 + world.random().nextInt(4);
        this.sessionTimeoutMs = 6_000 + world.random().nextInt(4_000);
        // Longer than a session and a rebalance: a thread that stalled past its session may still commit.
        this.transactionTimeoutMs = 20_000 + world.random().nextInt(20_000);
        this.checker = new StreamsChecker(metadata, metadata, objects, history, this);
    }

    /** Starts the threads (new ones, with the transactional ids of the earlier ones). */
    void start() {
        running.clear();
        for (int id = 1; id <= threads; id++) {
            StreamsTask task =
                    new StreamsTask(id, world, cluster, this, timeline, sessionTimeoutMs, transactionTimeoutMs);
            running.add(task);
            task.start();
        }
    }

    /**
     * The group's coordinator freezes for {@code nanos} right after it gets the next TxnOffsetCommit of
     * any thread (0: never): it resumes trusting its memory of a generation that may have ended.
     */
    void pauseCoordinatorAtNextOffsets(long nanos) {
        coordinatorPauseNanos = nanos;
    }

    /** For the thread sending offsets: how long to freeze their coordinator, once (0: not at all). */
    long takeCoordinatorPause() {
        long nanos = coordinatorPauseNanos;
        coordinatorPauseNanos = 0;
        return nanos;
    }

    /** Each thread finishes its transaction, leaves the group and stops. */
    void stop() {
        running.forEach(StreamsTask::stop);
    }

    boolean stopped() {
        return running.stream().allMatch(StreamsTask::stopped);
    }

    /** No thread is in a transaction. */
    boolean idle() {
        return running.stream().allMatch(StreamsTask::idle);
    }

    /** Counts the transactions of threads that stopped (a clean stop, or a quiet period of the whole cluster). */
    void retire() {
        for (StreamsTask task : running) {
            committed += task.committed();
            aborted += task.aborted();
        }
        running.clear();
    }

    /** The threads' states, for reports. */
    String describe() {
        return running.stream().map(StreamsTask::describe).toList().toString();
    }

    List<StreamsTask> threads() {
        return running;
    }

    String applicationId() {
        return APPLICATION_ID;
    }

    int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    int transactionTimeoutMs() {
        return transactionTimeoutMs;
    }

    List<TopicPartition> inputPartitions() {
        return inputPartitions;
    }

    /** Every partition of the three topics. */
    List<TopicPartition> partitions() {
        List<TopicPartition> all = new ArrayList<>();
        for (Topic topic : topics.values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                all.add(new TopicPartition(topic.name(), p));
            }
        }
        return all;
    }

    Topic topic(String name) {
        return topics.get(name);
    }

    TopicPartition outputOf(TopicPartition input) {
        return new TopicPartition(OUTPUT, input.partition());
    }

    TopicPartition changelogOf(TopicPartition input) {
        return new TopicPartition(CHANGELOG, input.partition());
    }

    /**
     * The state store's key of an input record's key: the application aggregates by key group, so the
     * changelog has few live keys and its rows must stay as few.
     */
    String stateKeyOf(String inputKey) {
        return "s" + Math.floorMod(inputKey == null ? 0 : inputKey.hashCode(), stateKeys);
    }

    /** Whether the state of an input value's key becomes a tombstone: every fifth value of a producer. */
    static boolean tombstone(String inputValue) {
        return Long.parseLong(inputValue.substring(inputValue.indexOf('-') + 1)) % 5 == 4;
    }

    /** Whether the stream threads ignore UNSTABLE_OFFSET_COMMIT (a negative control). */
    boolean ignoreUnstableOffsets() {
        return control == Control.STREAMS_IGNORE_UNSTABLE_OFFSETS;
    }

    OffsetTimeline timeline() {
        return timeline;
    }

    Races races() {
        return races;
    }

    StreamsChecker checker() {
        return checker;
    }

    History history() {
        return history;
    }

    Faults faults() {
        return faults;
    }

    /** A thread started over after a fatal error: counted by reason, for the run's figures. */
    void startedOver(String why) {
        startedOver.merge(why.replaceAll("[0-9]+", "N"), 1, Integer::sum);
    }

    Map<String, Integer> startOvers() {
        return startedOver;
    }

    int committedTransactions() {
        return committed + running.stream().mapToInt(StreamsTask::committed).sum();
    }

    int abortedTransactions() {
        return aborted + running.stream().mapToInt(StreamsTask::aborted).sum();
    }
}
