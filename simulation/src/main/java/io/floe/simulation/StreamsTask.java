package io.floe.simulation;

import io.floe.agent.fetch.FetchError;
import io.floe.agent.fetch.FetchIsolation;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.agent.fetch.PartitionResult;
import io.floe.agent.group.GroupError;
import io.floe.agent.produce.InvalidBatchException;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.record.NewBatch;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One stream thread of a Kafka Streams application with {@code exactly_once_v2}, on a process of its
 * own (so it can stall, as a long GC does): a member of the application's consumer group
 * ({@link GroupMember}) and a transactional producer (transaction version 2, one transactional id per
 * thread, as KIP-447 has it). It reads its input partitions read_committed from the offsets its group
 * fetched with {@code require_stable}, and for each batch of input it writes, in one transaction, an
 * output record per input record ({@code o:<input value>}) and the key's new state to the compacted
 * changelog (a tombstone for every fifth value), then sends the input offsets to the transaction
 * (TxnOffsetCommit with its group metadata) and commits. Anything fatal (fenced, the transaction
 * aborted under it, out of its generation) aborts and starts over from the group's offsets, as a
 * TaskMigratedException does; a rebalance is joined between transactions.
 */
final class StreamsTask {

    private static final long REQUEST_TIMEOUT_NANOS = 30_000_000_000L;
    private static final int ATTEMPTS_MAX = 5;
    private static final int RECORDS_PER_TRANSACTION_MAX = 3;
    /** How long an EndTxn after a stall waits for another member's offset read before it goes out anyway. */
    private static final long RACE_DEADLINE_NANOS = 3_000_000_000L;

    private final String transactionalId;
    private final World world;
    private final Cluster cluster;
    private final StreamsApp app;
    private final Node node;
    private final SimExecutor client;
    private final GroupMember member;
    private final int transactionTimeoutMs;

    private ProducerEpoch producer;
    private final Map<TopicPartition, Integer> nextSequence = new HashMap<>();
    /** Where the next read of each assigned input partition starts; null until the group's offsets are fetched. */
    private Map<TopicPartition, Long> positions;

    private boolean stopping;
    private boolean stopped;
    private boolean busy;
    private boolean inTransaction;
    private long transactionStartedAt;
    /** Bumped when the task starts over: answers to what it asked before are dropped. */
    private int incarnation;

    private long stallAfterOffsetsNanos;
    private int committed;
    private int aborted;

    StreamsTask(
            int id,
            World world,
            Cluster cluster,
            StreamsApp app,
            OffsetTimeline timeline,
            int sessionTimeoutMs,
            int transactionTimeoutMs) {
        this.transactionalId = app.applicationId() + "-" + id;
        this.world = world;
        this.cluster = cluster;
        this.app = app;
        this.node = new Node("task-" + id, false);
        this.client = new SimExecutor(world, node, "thread", 1);
        this.transactionTimeoutMs = transactionTimeoutMs;
        this.member = new GroupMember(
                world, cluster, client, timeline, transactionalId, app.inputPartitions(), sessionTimeoutMs, 15_000);
    }

    void start() {
        later(world.between(0, 100_000_000L));
    }

    /** Finishes the transaction in progress, leaves the group and stops (a clean shutdown). */
    void stop() {
        stopping = true;
        if (!busy) {
            later(0);
        }
    }

    boolean stopped() {
        return stopped;
    }

    /** Whether the task is in no transaction: between two, or stopped. */
    boolean idle() {
        return !inTransaction;
    }

    Node node() {
        return node;
    }

    int committed() {
        return committed;
    }

    int aborted() {
        return aborted;
    }

    /** The thread's state, for reports. */
    String describe() {
        return transactionalId + (stopped ? " stopped" : "")
                + (inTransaction ? " in a transaction" : busy ? " polling" : "") + " producer " + producer + " "
                + member.describe() + " positions " + positions;
    }

    /** The thread stalls (a long GC) for {@code nanos} right after its next offsets are sent to its transaction. */
    void stallAfterNextOffsets(long nanos) {
        stallAfterOffsetsNanos = nanos;
    }

    private void later(long delayNanos) {
        int mine = incarnation;
        client.schedule(
                () -> {
                    if (mine == incarnation) {
                        step();
                    }
                },
                delayNanos,
                TimeUnit.NANOSECONDS);
    }

    /** The thread's loop: what to do next, between transactions. */
    private void step() {
        busy = false;
        inTransaction = false;
        if (stopped) {
            return;
        }
        if (stopping) {
            member.leave();
            stopped = true;
            return;
        }
        if (producer == null) {
            initProducer();
        } else if (member.needsJoin()) {
            if (!member.joining()) {
                int mine = incarnation;
                member.join(assigned -> {
                    if (mine == incarnation) {
                        positions = null;
                        step();
                    }
                });
            }
        } else if (positions == null) {
            fetchOffsets();
        } else {
            poll();
        }
    }

    private void initProducer() {
        SimAgent agent = cluster.anyResponsiveAgent();
        if (agent == null) {
            later(200_000_000L);
            return;
        }
        int mine = incarnation;
        AgentRequest.send(
                client,
                agent,
                agent.blocking(),
                a -> CompletableFuture.completedFuture(
                        a.agent().transactions().initProducer(transactionalId, transactionTimeoutMs, null)),
                REQUEST_TIMEOUT_NANOS,
                outcome -> {
                    if (mine != incarnation) {
                        return;
                    }
                    if (outcome instanceof TransactionOutcome.Done done) {
                        producer = done.producer();
                        nextSequence.clear();
                        step();
                    } else {
                        later(world.between(100_000_000L, 500_000_000L));
                    }
                });
    }

    /** OffsetFetch with require_stable for the assignment; UNSTABLE_OFFSET_COMMIT is retried as the consumer does. */
    private void fetchOffsets() {
        List<TopicPartition> assigned = member.assignment();
        OffsetTimeline.Generation generation = member.generation();
        String memberId = member.memberId();
        int mine = incarnation;
        member.withCoordinator(to -> {
            if (to == null) {
                later(200_000_000L);
                return;
            }
            AgentRequest.send(
                    client,
                    to,
                    to.blocking(),
                    agent -> {
                        int from = app.timeline().now();
                        GroupRequests.OffsetFetchAnswer answer =
                                GroupRequests.offsetFetch(agent.agent(), member.groupId(), memberId, assigned);
                        if (answer.error() == GroupError.NONE) {
                            app.timeline()
                                    .fetched(generation, from, app.timeline().now(), answer.partitions());
                        }
                        return CompletableFuture.completedFuture(answer);
                    },
                    REQUEST_TIMEOUT_NANOS,
                    answer -> {
                        if (mine != incarnation || member.needsJoin()) {
                            later(0);
                            return;
                        }
                        if (answer == null || answer.error() != GroupError.NONE) {
                            member.coordinatorUnknown();
                            later(world.between(50_000_000L, 200_000_000L));
                        } else if (!app.ignoreUnstableOffsets()
                                && answer.partitions().values().stream()
                                        .anyMatch(GroupRequests.FetchedOffset::unstable)) {
                            later(world.between(50_000_000L, 300_000_000L));
                        } else {
                            positions = new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
                            answer.partitions()
                                    .forEach((tp, fetched) -> positions.put(tp, Math.max(0, fetched.offset())));
                            step();
                        }
                    });
        });
    }

    private void poll() {
        SimAgent agent = cluster.anyResponsiveAgent();
        if (positions.isEmpty() || agent == null) {
            later(world.between(100_000_000L, 300_000_000L));
            return;
        }
        List<PartitionQuery> queries = new ArrayList<>();
        positions.forEach((tp, position) -> queries.add(new PartitionQuery(tp, position, 16 * 1024)));
        FetchQuery query = new FetchQuery(
                queries,
                Duration.ofMillis(500),
                1,
                64 * 1024,
                world.random().nextBoolean(),
                FetchIsolation.READ_COMMITTED);
        int mine = incarnation;
        busy = true;
        AgentRequest.<FetchResult>send(
                client, agent, agent.listener(), a -> a.agent().fetch().fetch(query), REQUEST_TIMEOUT_NANOS, result -> {
                    if (mine != incarnation) {
                        if (result != null) {
                            result.release();
                        }
                        return;
                    }
                    Map<TopicPartition, List<ReadCommitted.Record>> read = result == null ? Map.of() : read(result);
                    if (result != null) {
                        result.release();
                    }
                    if (read.isEmpty() || member.needsJoin() || stopping) {
                        later(world.between(1_000_000L, 20_000_000L));
                    } else {
                        transaction(read);
                    }
                });
    }

    /** The records of one answer, at most a transaction's worth, advancing the positions past them. */
    private Map<TopicPartition, List<ReadCommitted.Record>> read(FetchResult result) {
        Map<TopicPartition, List<ReadCommitted.Record>> read =
                new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        int taken = 0;
        for (PartitionResult partition : result.partitions()) {
            TopicPartition tp = partition.topicPartition();
            Long position = positions.get(tp);
            if (position == null) {
                continue;
            }
            if (partition instanceof PartitionResult.Error error) {
                if (error.error() == FetchError.OFFSET_OUT_OF_RANGE
                        && position < error.offsets().logStartOffset()) {
                    // auto.offset.reset=earliest: what retention removed before it was read is skipped.
                    app.checker()
                            .skippedByRetention(tp, position, error.offsets().logStartOffset());
                    positions.put(tp, error.offsets().logStartOffset());
                }
                continue;
            }
            ReadCommitted.Read answer = ReadCommitted.read((PartitionResult.Data) partition, position);
            List<ReadCommitted.Record> records = new ArrayList<>();
            long next = position;
            for (ReadCommitted.Record record : answer.records()) {
                if (taken == RECORDS_PER_TRANSACTION_MAX) {
                    break;
                }
                records.add(record);
                next = record.offset() + 1;
                taken++;
            }
            positions.put(tp, records.size() == answer.records().size() ? answer.position() : next);
            if (!records.isEmpty()) {
                read.put(tp, records);
            }
        }
        return read;
    }

    /** One transaction: the output and changelog batches, then the input offsets, then the commit. */
    private void transaction(Map<TopicPartition, List<ReadCommitted.Record>> read) {
        inTransaction = true;
        transactionStartedAt = world.nanoTime();
        Map<TopicPartition, ByteBuffer> batches = new TreeMap<>(
                java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
        long nowMs = world.clock().millis();
        read.forEach((input, records) -> {
            List<NewBatch.Entry> outputs = new ArrayList<>();
            List<NewBatch.Entry> changes = new ArrayList<>();
            for (ReadCommitted.Record record : records) {
                byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
                outputs.add(new NewBatch.Entry(nowMs, key, ("o:" + record.value()).getBytes(StandardCharsets.UTF_8)));
                byte[] state = app.stateKeyOf(record.key()).getBytes(StandardCharsets.UTF_8);
                changes.add(new NewBatch.Entry(
                        nowMs,
                        state,
                        StreamsApp.tombstone(record.value())
                                ? null
                                : record.value().getBytes(StandardCharsets.UTF_8)));
            }
            batches.put(app.outputOf(input), batch(app.outputOf(input), outputs));
            batches.put(app.changelogOf(input), batch(app.changelogOf(input), changes));
            offsets.put(input, new CommittedOffset(positions.get(input), CommittedOffset.NO_LEADER_EPOCH, "", nowMs));
        });
        int mine = incarnation;
        int[] outstanding = {batches.size()};
        batches.forEach((tp, bytes) -> append(mine, tp, bytes, 0, () -> {
            if (--outstanding[0] == 0) {
                sendOffsets(mine, offsets, 0);
            }
        }));
    }

    private ByteBuffer batch(TopicPartition tp, List<NewBatch.Entry> entries) {
        int sequence = nextSequence.getOrDefault(tp, 0);
        nextSequence.put(tp, sequence + entries.size());
        return NewBatch.transactional(producer.producerId(), producer.epoch(), sequence, entries);
    }

    private void append(int mine, TopicPartition tp, ByteBuffer bytes, int attempt, Runnable onAppended) {
        SimAgent agent = cluster.anyResponsiveAgent();
        if (agent == null) {
            retryAppend(mine, tp, bytes, attempt, onAppended);
            return;
        }
        AgentRequest.<AppendResult>send(
                client,
                agent,
                agent.listener(),
                a -> {
                    try {
                        return a.agent()
                                .produce()
                                .append(
                                        app.topic(tp.topic()),
                                        tp.partition(),
                                        bytes.duplicate(),
                                        TransactionalAppend.JOINS_TRANSACTION);
                    } catch (InvalidBatchException e) {
                        app.history().violation("ValidBatchAccepted", "a valid transactional batch was refused: " + e);
                        return CompletableFuture.completedFuture(null);
                    }
                },
                REQUEST_TIMEOUT_NANOS,
                answer -> {
                    if (mine != incarnation) {
                        return;
                    }
                    if (answer instanceof AppendResult.Appended || answer instanceof AppendResult.Duplicate) {
                        onAppended.run();
                    } else if (answer instanceof AppendResult.Failed failed
                            && failed.error() != AppendError.NOT_COMMITTED
                            && failed.error() != AppendError.OUT_OF_ORDER_SEQUENCE) {
                        startOver("append to " + tp + " refused: " + failed.error());
                    } else {
                        retryAppend(mine, tp, bytes, attempt, onAppended);
                    }
                });
    }

    private void retryAppend(int mine, TopicPartition tp, ByteBuffer bytes, int attempt, Runnable onAppended) {
        if (attempt + 1 >= ATTEMPTS_MAX * 2) {
            startOver("append to " + tp + " unanswered"); // delivery timeout: its fate unknown, so abort
            return;
        }
        client.schedule(
                () -> {
                    if (mine == incarnation) {
                        append(mine, tp, bytes, attempt + 1, onAppended);
                    }
                },
                world.between(10_000_000L, 200_000_000L),
                TimeUnit.NANOSECONDS);
    }

    /** TxnOffsetCommit to the group's coordinator, with the member's id and generation. */
    private void sendOffsets(int mine, Map<TopicPartition, CommittedOffset> offsets, int attempt) {
        OffsetTimeline.Generation generation = member.generation();
        String memberId = member.memberId();
        member.withCoordinator(to -> {
            if (to == null) {
                retryOffsets(mine, offsets, attempt);
                return;
            }
            AgentRequest.send(
                    client,
                    to,
                    to.blocking(),
                    agent -> CompletableFuture.completedFuture(app.timeline()
                            .committing(
                                    generation,
                                    () -> GroupRequests.txnOffsetCommit(
                                            agent.agent(),
                                            transactionalId,
                                            producer,
                                            member.groupId(),
                                            memberId,
                                            generation.generationId(),
                                            offsets))),
                    REQUEST_TIMEOUT_NANOS,
                    answer -> offsetsAnswered(mine, offsets, attempt, answer));
            long pause = app.takeCoordinatorPause();
            if (pause > 0) {
                cluster.pause(to, pause);
            }
        });
    }

    private void offsetsAnswered(
            int mine,
            Map<TopicPartition, CommittedOffset> offsets,
            int attempt,
            GroupRequests.TxnOffsetCommitAnswer answer) {
        if (mine != incarnation) {
            return;
        }
        if (answer == null) {
            member.coordinatorUnknown();
            retryOffsets(mine, offsets, attempt);
            return;
        }
        switch (answer.memberError()) {
            case NONE -> {
                if (answer.outcome() instanceof TransactionOutcome.Done) {
                    if (stallAfterOffsetsNanos > 0) {
                        node.pauseUntil(world.nanoTime() + stallAfterOffsetsNanos);
                        app.faults().count("stream thread stalled");
                        stallAfterOffsetsNanos = 0;
                    }
                    client.execute(() -> {
                        if (mine == incarnation) {
                            end(mine, true, 0);
                        }
                    });
                } else {
                    startOver("TxnOffsetCommit refused: " + answer.outcome());
                }
            }
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS -> {
                member.coordinatorUnknown();
                retryOffsets(mine, offsets, attempt);
            }
            default -> {
                // CommitFailedException: the thread is out of its generation; abort, rejoin, start from the offsets.
                member.outOfGeneration(answer.memberError() == GroupError.UNKNOWN_MEMBER_ID);
                end(mine, false, 0);
            }
        }
    }

    private void retryOffsets(int mine, Map<TopicPartition, CommittedOffset> offsets, int attempt) {
        if (attempt + 1 >= ATTEMPTS_MAX) {
            end(mine, false, 0);
            return;
        }
        client.schedule(
                () -> {
                    if (mine == incarnation) {
                        sendOffsets(mine, offsets, attempt + 1);
                    }
                },
                world.between(50_000_000L, 300_000_000L),
                TimeUnit.NANOSECONDS);
    }

    /**
     * EndTxn. A commit made after the thread stalled in its transaction is held back until another
     * member reads the group's offsets ({@link Races}): it lands between that member's store reads.
     */
    private void end(int mine, boolean commit, int attempt) {
        Runnable send = () -> sendEnd(mine, commit, attempt);
        if (commit && attempt == 0 && node.pausedUntil() > transactionStartedAt) {
            app.races().park(member.groupId(), send, client, RACE_DEADLINE_NANOS);
        } else {
            send.run();
        }
    }

    private void sendEnd(int mine, boolean commit, int attempt) {
        SimAgent agent = cluster.anyResponsiveAgent();
        if (mine != incarnation) {
            return;
        }
        if (agent == null) {
            retryEnd(mine, commit, attempt);
            return;
        }
        AgentRequest.send(
                client,
                agent,
                agent.blocking(),
                a -> CompletableFuture.completedFuture(
                        a.agent().transactions().endTransaction(transactionalId, producer, commit, true)),
                REQUEST_TIMEOUT_NANOS,
                outcome -> {
                    if (mine != incarnation) {
                        return;
                    }
                    if (outcome instanceof TransactionOutcome.Done done) {
                        producer = done.producer();
                        nextSequence.clear();
                        if (commit) {
                            committed++;
                        } else {
                            aborted++;
                            positions = null;
                        }
                        step();
                    } else if (outcome == null) {
                        retryEnd(mine, commit, attempt);
                    } else {
                        startOver("EndTxn(" + (commit ? "commit" : "abort") + ") refused: " + outcome);
                    }
                },
                true);
    }

    private void retryEnd(int mine, boolean commit, int attempt) {
        if (attempt + 1 >= ATTEMPTS_MAX) {
            startOver("EndTxn unanswered");
            return;
        }
        client.schedule(
                () -> {
                    if (mine == incarnation) {
                        sendEnd(mine, commit, attempt + 1);
                    }
                },
                world.between(50_000_000L, 300_000_000L),
                TimeUnit.NANOSECONDS);
    }

    /**
     * The producer is fenced or its transaction is gone or unknown: a new producer (InitProducerId aborts
     * what it left open), and the offsets fetched again.
     */
    private void startOver(String why) {
        incarnation++;
        inTransaction = false;
        aborted++;
        producer = null;
        positions = null;
        app.startedOver(why);
        later(world.between(100_000_000L, 500_000_000L));
    }
}
