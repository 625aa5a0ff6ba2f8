package io.floe.simulation;

import io.floe.agent.produce.InvalidBatchException;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.record.NewBatch;
import io.floe.core.topic.Topic;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An idempotent producer as the Java client behaves (acks=all, up to five batches in flight per
 * partition): every value unique, sequences per partition, a batch retried with the same sequence
 * until it is answered with an offset. After a retriable failure or a timeout it waits for the
 * partition's other requests, then sends the unanswered batches again in order. It talks to the
 * agent's produce pipeline directly (the Kafka protocol layer is not simulated); a response that
 * comes from a dead agent never arrives.
 */
final class SimProducer {

    private static final int IN_FLIGHT_MAX = 5;
    private static final long REQUEST_TIMEOUT_NANOS = 30_000_000_000L;

    /** One batch with its fixed bytes (a retry resends them exactly). */
    private static final class Batch {
        final TopicPartition topicPartition;
        final int baseSequence;
        final List<String> values;
        final ByteBuffer bytes;
        boolean inFlight;
        int attempt;

        Batch(TopicPartition topicPartition, int baseSequence, List<String> values, ByteBuffer bytes) {
            this.topicPartition = topicPartition;
            this.baseSequence = baseSequence;
            this.values = values;
            this.bytes = bytes;
        }
    }

    /** The producer's state for one partition. */
    private static final class PartitionState {
        int nextSequence;
        final Deque<Batch> unanswered = new ArrayDeque<>();

        int inFlight;
        boolean resend;
        boolean waitingForAgent;
    }

    private final int id;
    private final World world;
    private final Cluster cluster;
    private final History history;
    private final SimExecutor client;
    /** -1: not idempotent (a negative control). */
    private final long producerId;

    private final List<Topic> topics;
    private final Map<TopicPartition, PartitionState> partitions = new HashMap<>();
    private final Map<TopicPartition, Topic> topicOf = new HashMap<>();
    private int nextValue;
    private final int batchesMax;
    private final long batchIntervalMaxNanos;
    private int onlyPartition = -1;
    private int batchesMade;
    private boolean closed;

    SimProducer(
            int id,
            World world,
            Cluster cluster,
            History history,
            SimExecutor client,
            long producerId,
            List<Topic> topics,
            int batchesMax) {
        this(id, world, cluster, history, client, producerId, topics, batchesMax, 40_000_000L);
    }

    /** As the other constructor, with a new batch every 1 ms to {@code batchIntervalMaxNanos}. */
    SimProducer(
            int id,
            World world,
            Cluster cluster,
            History history,
            SimExecutor client,
            long producerId,
            List<Topic> topics,
            int batchesMax,
            long batchIntervalMaxNanos) {
        this.batchIntervalMaxNanos = batchIntervalMaxNanos;
        this.id = id;
        this.world = world;
        this.cluster = cluster;
        this.history = history;
        this.client = client;
        this.producerId = producerId;
        this.topics = topics;
        this.batchesMax = batchesMax;
        for (Topic topic : topics) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                TopicPartition tp = new TopicPartition(topic.name(), p);
                partitions.put(tp, new PartitionState());
                topicOf.put(tp, topic);
            }
        }
    }

    /** From now on it writes only to partition {@code partition} (of one-topic producers). */
    void onlyTo(int partition) {
        onlyPartition = partition;
    }

    void start() {
        client.schedule(this::produceOne, world.between(0, 10_000_000L), TimeUnit.NANOSECONDS);
    }

    /**
     * The client process stops: nothing more is sent or retried (answers still in flight are taken), so
     * its unanswered values stay unacknowledged, as those of a producer closed before its retries ended.
     */
    void close() {
        closed = true;
    }

    /** Whether every batch made was answered with its offset. */
    boolean done() {
        return batchesMade == batchesMax && partitions.values().stream().allMatch(state -> state.unanswered.isEmpty());
    }

    int unanswered() {
        return partitions.values().stream()
                .mapToInt(state -> state.unanswered.size())
                .sum();
    }

    private void produceOne() {
        if (closed || batchesMade >= batchesMax) {
            return;
        }
        Topic topic = topics.get(world.random().nextInt(topics.size()));
        TopicPartition tp = new TopicPartition(
                topic.name(),
                onlyPartition >= 0 ? onlyPartition : world.random().nextInt(topic.partitionCount()));
        PartitionState state = partitions.get(tp);
        int count = 1 + world.random().nextInt(4);
        List<String> values = new ArrayList<>(count);
        List<NewBatch.Entry> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String value = "p" + id + "-" + nextValue++;
            values.add(value);
            history.sent(value);
            records.add(new NewBatch.Entry(
                    world.clock().millis(),
                    ("k" + world.random().nextInt(50)).getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8)));
        }
        ByteBuffer bytes = producerId < 0
                ? NewBatch.of(records)
                : NewBatch.idempotent(producerId, (short) 0, state.nextSequence, records);
        state.unanswered.addLast(new Batch(tp, state.nextSequence, values, bytes));
        state.nextSequence += count;
        batchesMade++;
        pump(state);
        client.schedule(this::produceOne, world.between(1_000_000L, batchIntervalMaxNanos), TimeUnit.NANOSECONDS);
    }

    private void pump(PartitionState state) {
        if (closed) {
            return;
        }
        if (state.resend) {
            if (state.inFlight > 0) {
                return;
            }
            state.resend = false;
            state.unanswered.forEach(batch -> batch.inFlight = false);
        }
        if (state.unanswered.stream().allMatch(batch -> batch.inFlight)) {
            return;
        }
        SimAgent agent = cluster.anyLiveAgent();
        if (agent == null) {
            if (!state.waitingForAgent) {
                state.waitingForAgent = true;
                client.schedule(
                        () -> {
                            state.waitingForAgent = false;
                            pump(state);
                        },
                        500_000_000L,
                        TimeUnit.NANOSECONDS);
            }
            return;
        }
        for (Batch batch : state.unanswered) {
            if (state.inFlight >= IN_FLIGHT_MAX) {
                break;
            }
            if (!batch.inFlight) {
                send(state, batch, agent);
            }
        }
    }

    private void send(PartitionState state, Batch batch, SimAgent agent) {
        batch.inFlight = true;
        state.inFlight++;
        int attempt = ++batch.attempt;
        boolean[] answered = {false};
        CompletableFuture<AppendResult> result;
        try {
            result = agent.agent()
                    .produce()
                    .append(
                            topicOf.get(batch.topicPartition),
                            batch.topicPartition.partition(),
                            batch.bytes.duplicate());
        } catch (InvalidBatchException e) {
            history.violation("ValidBatchAccepted", "a valid batch was refused: " + e.getMessage());
            result = CompletableFuture.failedFuture(e);
        }
        result.whenComplete((answer, failure) -> {
            if (!agent.alive()) {
                return; // the process died: its answer never leaves it
            }
            client.execute(() -> {
                if (!answered[0] && attempt == batch.attempt) {
                    answered[0] = true;
                    onAnswer(state, batch, answer);
                }
            });
        });
        client.schedule(
                () -> {
                    if (!answered[0] && attempt == batch.attempt) {
                        answered[0] = true;
                        onAnswer(state, batch, null);
                    }
                },
                REQUEST_TIMEOUT_NANOS,
                TimeUnit.NANOSECONDS);
    }

    /** {@code answer} null: no answer in time (timeout, or the agent died). */
    private void onAnswer(PartitionState state, Batch batch, AppendResult answer) {
        state.inFlight--;
        batch.inFlight = false;
        if (answer instanceof AppendResult.Appended appended) {
            acknowledged(state, batch, appended.baseOffset());
        } else if (answer instanceof AppendResult.Duplicate duplicate) {
            acknowledged(state, batch, duplicate.offsetKnown() ? duplicate.baseOffset() : -1);
        } else if (answer instanceof AppendResult.Failed failed) {
            switch (failed.error()) {
                case NOT_COMMITTED -> state.resend = true;
                // Retriable, as in the Java client: an earlier batch may still be in flight to another agent
                // (after a leadership change), and lands first. Whether the log is right is the checker's call.
                case OUT_OF_ORDER_SEQUENCE -> state.resend = true;
                default -> {
                    history.violation(
                            "UnexpectedError",
                            failed.error() + " for " + batch.topicPartition + ": " + failed.message());
                    state.resend = true;
                }
            }
        } else {
            state.resend = true;
        }
        pump(state);
    }

    private void acknowledged(PartitionState state, Batch batch, long baseOffset) {
        // A later batch may be answered first (an earlier one's commit applied but its answer was lost):
        // the order that matters is the log's, which the checker verifies.
        state.unanswered.remove(batch);
        for (int i = 0; i < batch.values.size(); i++) {
            if (baseOffset >= 0) {
                history.acked(batch.values.get(i), new History.Position(batch.topicPartition, baseOffset + i));
            } else {
                history.ackedWithoutOffset(batch.values.get(i), batch.topicPartition);
            }
        }
    }
}
