package io.floe.simulation;

import io.floe.agent.group.GroupError;
import io.floe.agent.group.TransactionalCommitResult;
import io.floe.agent.produce.InvalidBatchException;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.record.NewBatch;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
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
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A transactional producer as the Java client behaves, talking to the agent's transaction coordinator
 * and produce pipeline directly: InitProducerId for its transactional id, then transactions one after
 * another (partitions added first under transaction version 1, joined by the append under version 2),
 * one batch in flight per partition, retried with its sequence until answered, sometimes offsets sent
 * to a group, then EndTxn only once every batch is answered: commit or abort, as the seed says, and
 * abort after a batch failed. A retriable failure or a request that got no answer (its agent died, or
 * answered too late) is retried on any live agent a few times; a fenced producer, or one out of
 * attempts, abandons its transaction and initializes again, which aborts it. Now and then it hangs
 * past its transaction timeout, leaving the coordinator's timeout loop to abort what it left open.
 * What it knows of each transaction's end goes to the {@link History}.
 */
final class SimTransactionalProducer {

    static final String GROUP_PREFIX = "g-";
    /** The partition of the offsets a transaction sends to its producer's group. */
    static final TopicPartition OFFSETS_PARTITION = new TopicPartition("events", 0);

    private static final long REQUEST_TIMEOUT_NANOS = 30_000_000_000L;
    private static final int ATTEMPTS_MAX = 6;
    private static final double COMMIT_SHARE = 0.7;
    private static final double HANG_SHARE = 0.06;
    private static final double OFFSETS_SHARE = 0.3;

    /** One batch of the transaction, with fixed bytes (a retry resends them exactly). */
    private record Batch(TopicPartition topicPartition, ByteBuffer bytes) {}

    private final int id;
    private final String transactionalId;
    private final World world;
    private final Cluster cluster;
    private final History history;
    private final SimExecutor client;
    private final Map<TopicPartition, Topic> topicOf;
    private final List<TopicPartition> partitions;
    private final boolean version2;
    private final int timeoutMs;
    private final int transactionsMax;

    private ProducerEpoch producer;
    private final Map<TopicPartition, Integer> nextSequence = new HashMap<>();
    private final Map<TopicPartition, Deque<Batch>> unsent = new HashMap<>();
    private int transactionsMade;
    private String transaction;
    private int nextValue;
    private boolean busy = true;
    private boolean failed;
    private int attempts;
    /** Bumped whenever the producer starts over: answers to an earlier incarnation's requests are dropped. */
    private int incarnation;

    SimTransactionalProducer(
            int id, World world, Cluster cluster, History history, SimExecutor client, List<Topic> topics) {
        this.id = id;
        this.transactionalId = "tx-" + id;
        this.world = world;
        this.cluster = cluster;
        this.history = history;
        this.client = client;
        this.topicOf = new HashMap<>();
        this.partitions = new ArrayList<>();
        for (Topic topic : topics) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                TopicPartition tp = new TopicPartition(topic.name(), p);
                partitions.add(tp);
                topicOf.put(tp, topic);
            }
        }
        this.version2 = world.random().nextBoolean();
        this.timeoutMs = 3_000 + world.random().nextInt(7_000);
        this.transactionsMax = 4 + world.random().nextInt(10);
    }

    void start() {
        client.schedule(this::init, world.between(0, 50_000_000L), TimeUnit.NANOSECONDS);
    }

    /** Whether every transaction was made and the last one ended. */
    boolean done() {
        return !busy && transactionsMade == transactionsMax;
    }

    int transactions() {
        return transactionsMade;
    }

    private void init() {
        int mine = ++incarnation;
        request(agent -> agent.agent().transactions().initProducer(transactionalId, timeoutMs, null), outcome -> {
            if (mine != incarnation) {
                return;
            }
            if (outcome instanceof TransactionOutcome.Done done) {
                producer = done.producer();
                nextSequence.clear();
                begin();
            } else {
                client.schedule(this::init, world.between(100_000_000L, 1_000_000_000L), TimeUnit.NANOSECONDS);
            }
        });
    }

    private void begin() {
        if (transactionsMade == transactionsMax) {
            busy = false;
            return;
        }
        transactionsMade++;
        transaction = transactionalId + "#" + transactionsMade;
        failed = false;
        attempts = 0;
        unsent.clear();
        int count = 1 + world.random().nextInt(Math.min(3, partitions.size()));
        List<TopicPartition> chosen = new ArrayList<>(partitions);
        while (chosen.size() > count) {
            chosen.remove(world.random().nextInt(chosen.size()));
        }
        for (TopicPartition tp : chosen) {
            Deque<Batch> batches = new ArrayDeque<>();
            for (int b = 1 + world.random().nextInt(3); b > 0; b--) {
                batches.add(newBatch(tp));
            }
            unsent.put(tp, batches);
        }
        if (version2) {
            sendAll();
        } else {
            addPartitions(chosen);
        }
    }

    /** AddPartitionsToTxn for the transaction's partitions, retried while unanswered. */
    private void addPartitions(List<TopicPartition> chosen) {
        int mine = incarnation;
        request(agent -> agent.agent().transactions().addPartitions(transactionalId, producer, chosen), outcome -> {
            if (mine != incarnation) {
                return;
            }
            if (outcome instanceof TransactionOutcome.Done) {
                attempts = 0;
                sendAll();
            } else if (outcome == null && ++attempts < ATTEMPTS_MAX) {
                addPartitions(chosen);
            } else {
                abandon();
            }
        });
    }

    private Batch newBatch(TopicPartition tp) {
        int count = 1 + world.random().nextInt(3);
        List<NewBatch.Entry> records = new ArrayList<>(count);
        int sequence = nextSequence.getOrDefault(tp, 0);
        for (int i = 0; i < count; i++) {
            String value = "t" + id + "-" + nextValue++;
            history.sentInTransaction(transaction, value, tp);
            records.add(new NewBatch.Entry(
                    world.clock().millis(),
                    ("k" + world.random().nextInt(50)).getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8)));
        }
        nextSequence.put(tp, sequence + count);
        return new Batch(tp, NewBatch.transactional(producer.producerId(), producer.epoch(), sequence, records));
    }

    private void sendAll() {
        List<TopicPartition> waiting = new ArrayList<>(unsent.keySet());
        waiting.sort(java.util.Comparator.comparing(TopicPartition::toString));
        for (TopicPartition tp : waiting) {
            send(tp, 0);
        }
        if (world.chance(HANG_SHARE)) {
            // The client stalls (a long GC, a stuck thread) past its transaction timeout, then starts over.
            int mine = incarnation;
            incarnation++;
            client.schedule(
                    () -> {
                        if (mine + 1 == incarnation) {
                            init();
                        }
                    },
                    timeoutMs + 12_000L,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Sends the head batch of {@code tp}'s queue; the next follows its answer. */
    private void send(TopicPartition tp, int attempt) {
        Batch batch = unsent.get(tp).peekFirst();
        int mine = incarnation;
        TransactionalAppend joins =
                version2 ? TransactionalAppend.JOINS_TRANSACTION : TransactionalAppend.IN_TRANSACTION;
        requestAsync(
                agent -> {
                    try {
                        return agent.agent()
                                .produce()
                                .append(
                                        topicOf.get(tp),
                                        tp.partition(),
                                        batch.bytes().duplicate(),
                                        joins);
                    } catch (InvalidBatchException e) {
                        history.violation("ValidBatchAccepted", "a valid transactional batch was refused: " + e);
                        return CompletableFuture.completedFuture(null);
                    }
                },
                answer -> {
                    if (mine != incarnation) {
                        return;
                    }
                    if (answer instanceof AppendResult.Appended || answer instanceof AppendResult.Duplicate) {
                        unsent.get(tp).removeFirst();
                    } else if (answer instanceof AppendResult.Failed refused
                            && refused.error() != io.floe.core.metadata.AppendError.NOT_COMMITTED
                            && refused.error() != io.floe.core.metadata.AppendError.OUT_OF_ORDER_SEQUENCE) {
                        // fenced, or the transaction no longer admits it (the timeout loop aborted it)
                        abandon();
                        return;
                    } else if (attempt + 1 >= ATTEMPTS_MAX * 2) {
                        // delivery timeout: the batch's fate is unknown, so the transaction must abort
                        failed = true;
                        unsent.get(tp).clear();
                    } else {
                        client.schedule(
                                () -> {
                                    if (mine == incarnation) {
                                        send(tp, attempt + 1);
                                    }
                                },
                                world.between(10_000_000L, 200_000_000L),
                                TimeUnit.NANOSECONDS);
                        return;
                    }
                    if (!unsent.get(tp).isEmpty()) {
                        send(tp, 0);
                    } else if (unsent.values().stream().allMatch(Deque::isEmpty)) {
                        afterSends();
                    }
                });
    }

    private void afterSends() {
        if (failed || !world.chance(OFFSETS_SHARE)) {
            end(!failed && world.chance(COMMIT_SHARE));
            return;
        }
        int mine = incarnation;
        String group = GROUP_PREFIX + transactionalId;
        Map<TopicPartition, CommittedOffset> offsets = Map.of(
                OFFSETS_PARTITION,
                new CommittedOffset(
                        transactionsMade,
                        CommittedOffset.NO_LEADER_EPOCH,
                        transaction,
                        world.clock().millis()));
        requestAsync(
                group, agent -> CompletableFuture.completedFuture(commitOffsets(agent, group, offsets)), outcome -> {
                    if (mine != incarnation) {
                        return;
                    }
                    if (outcome instanceof TransactionOutcome.Done) {
                        history.offsetsSent(transaction, transactionsMade);
                        end(world.chance(COMMIT_SHARE));
                    } else if (outcome == null) {
                        history.offsetsSent(transaction, transactionsMade); // may have applied
                        end(false);
                    } else {
                        abandon();
                    }
                });
    }

    private void end(boolean commit) {
        if (commit) {
            history.ended(transaction, History.Ending.UNKNOWN);
        }
        int mine = incarnation;
        String name = transaction;
        request(
                agent -> agent.agent().transactions().endTransaction(transactionalId, producer, commit, version2),
                outcome -> {
                    if (mine != incarnation) {
                        return;
                    }
                    if (outcome instanceof TransactionOutcome.Done done) {
                        history.ended(name, commit ? History.Ending.COMMITTED : History.Ending.ABORTED);
                        if (!done.producer().equals(producer)) {
                            producer = done.producer();
                            nextSequence.clear();
                        }
                        attempts = 0;
                        if (failed) {
                            abandon(); // a batch's fate is unknown: its sequences too, so a new epoch
                        } else {
                            begin();
                        }
                    } else if (outcome == null && ++attempts < ATTEMPTS_MAX) {
                        end(commit);
                    } else {
                        if (commit
                                && outcome instanceof TransactionOutcome.Refused refused
                                && refused.error() == TransactionError.INVALID_TXN_STATE) {
                            // Every batch was answered (a failed one makes the end an abort), and a timeout's
                            // abort fences the epoch: the transaction this producer wrote to must be open.
                            history.violation(
                                    "CommitOfAnsweredTransaction",
                                    name + ": EndTxn(commit) at " + producer + " refused: " + refused.message());
                        }
                        abandon();
                    }
                });
    }

    /** Gives the transaction up (its end stays as the client knows it) and initializes again. */
    private void abandon() {
        incarnation++;
        client.schedule(this::init, world.between(100_000_000L, 1_000_000_000L), TimeUnit.NANOSECONDS);
    }

    /**
     * AddOffsetsToTxn (version 1) and TxnOffsetCommit, the latter at the group's coordinator as a client
     * sends it (outside group management: no member); a refusal of the group's is NOT_COORDINATOR.
     */
    private TransactionOutcome commitOffsets(
            SimAgent agent, String group, Map<TopicPartition, CommittedOffset> offsets) {
        if (!version2) {
            TransactionOutcome added = agent.agent().transactions().addOffsets(transactionalId, producer, group);
            if (!(added instanceof TransactionOutcome.Done)) {
                return added;
            }
        }
        TransactionalCommitResult result = agent.agent()
                .groups()
                .commitTransactionalOffsets(
                        group,
                        "",
                        null,
                        -1,
                        lease -> agent.agent()
                                .transactions()
                                .commitPendingOffsets(transactionalId, producer, lease, offsets));
        return result.error() == GroupError.NONE
                ? result.outcome()
                : new TransactionOutcome.Refused(
                        TransactionError.NOT_COORDINATOR, "group " + group + " refused: " + result.error());
    }

    /** Runs a blocking coordinator call on a live agent's network thread; {@code onAnswer} gets null for no answer. */
    private <T> void request(Function<SimAgent, T> call, Consumer<T> onAnswer) {
        requestAsync(agent -> CompletableFuture.completedFuture(call.apply(agent)), onAnswer);
    }

    private <T> void requestAsync(Function<SimAgent, CompletableFuture<T>> call, Consumer<T> onAnswer) {
        requestAsync(null, call, onAnswer);
    }

    /**
     * As {@link #requestAsync(Function, Consumer)}, sent to a live agent that takes itself for the
     * coordinator of {@code group} when there is one (as a client's FindCoordinator finds it).
     */
    private <T> void requestAsync(String group, Function<SimAgent, CompletableFuture<T>> call, Consumer<T> onAnswer) {
        SimAgent chosen = cluster.anyLiveAgent();
        SimAgent agent = group == null || chosen == null
                ? chosen
                : cluster.liveAgents().stream()
                        .filter(live -> live.agent().cluster().isCoordinatorOf(group))
                        .findFirst()
                        .orElse(chosen);
        if (agent == null) {
            client.schedule(() -> onAnswer.accept(null), 200_000_000L, TimeUnit.NANOSECONDS);
            return;
        }
        boolean[] answered = {false};
        agent.listener().execute(() -> {
            CompletableFuture<T> result;
            try {
                result = call.apply(agent);
            } catch (RuntimeException e) {
                result = CompletableFuture.failedFuture(e); // a store failure: no answer the client can use
            }
            result.whenComplete((answer, failure) -> {
                if (agent.alive()) {
                    client.execute(() -> {
                        if (!answered[0]) {
                            answered[0] = true;
                            onAnswer.accept(answer);
                        }
                    });
                }
            });
        });
        client.schedule(
                () -> {
                    if (!answered[0]) {
                        answered[0] = true;
                        onAnswer.accept(null);
                    }
                },
                REQUEST_TIMEOUT_NANOS,
                TimeUnit.NANOSECONDS);
    }
}
