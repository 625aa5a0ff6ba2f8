package io.floe.simulation;

import io.floe.agent.fetch.FetchIsolation;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.TopicPartition;
import io.floe.core.record.MarkerBatch;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A consumer of one partition reading it in order through the real fetch path of whichever agent is
 * live (long polls included), recording each record it reads. Reads must be dense: the only gap
 * allowed is a jump to the log start when retention removed what it had not read yet. A read_committed
 * consumer fetches below the last stable offset and drops aborted batches as the Java client does
 * (by the answer's aborted transactions and the abort markers it meets), recording what it returns.
 */
final class SimConsumer {

    private static final long REQUEST_TIMEOUT_NANOS = 30_000_000_000L;

    private final TopicPartition topicPartition;
    private final World world;
    private final Cluster cluster;
    private final History history;
    private final SimExecutor client;
    private final boolean retentionAllowed;
    /** Null for a read_uncommitted consumer. */
    private final TransactionChecker readCommitted;

    private final Control control;
    private long position;
    private long attempt;
    private boolean stopped;
    private String lastReadFrom = "nobody";
    private String lastAnswer = "none";

    SimConsumer(
            TopicPartition topicPartition,
            World world,
            Cluster cluster,
            History history,
            SimExecutor client,
            boolean retentionAllowed) {
        this(topicPartition, world, cluster, history, client, retentionAllowed, null, Control.NONE);
    }

    /** A read_committed consumer, whose answers {@code checker} checks; {@code control} may break it. */
    SimConsumer(
            TopicPartition topicPartition,
            World world,
            Cluster cluster,
            History history,
            SimExecutor client,
            boolean retentionAllowed,
            TransactionChecker checker,
            Control control) {
        this.readCommitted = checker;
        this.control = control;
        this.topicPartition = topicPartition;
        this.world = world;
        this.cluster = cluster;
        this.history = history;
        this.client = client;
        this.retentionAllowed = retentionAllowed;
    }

    void start() {
        next(world.between(0, 50_000_000L));
    }

    /** Stops after the request in flight, if any. */
    void stop() {
        stopped = true;
    }

    TopicPartition topicPartition() {
        return topicPartition;
    }

    long position() {
        return position;
    }

    private void next(long delayNanos) {
        client.schedule(this::fetch, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void fetch() {
        if (stopped) {
            return;
        }
        SimAgent agent = cluster.anyLiveAgent();
        if (agent == null) {
            next(200_000_000L);
            return;
        }
        long mine = ++attempt;
        // Half the fetches may be answered with file ranges, as the network layer's always are.
        FetchQuery query = new FetchQuery(
                List.of(new PartitionQuery(topicPartition, position, 64 * 1024)),
                Duration.ofMillis(world.between(0, 500)),
                1,
                64 * 1024,
                world.random().nextBoolean(),
                readCommitted != null && control != Control.FETCH_IGNORES_LSO
                        ? FetchIsolation.READ_COMMITTED
                        : FetchIsolation.READ_UNCOMMITTED);
        agent.listener()
                .execute(() -> agent.agent().fetch().fetch(query).whenComplete((result, failure) -> {
                    if (agent.alive()) {
                        client.execute(() -> answered(mine, result, agent));
                    } else if (result != null) {
                        result.release();
                    }
                }));
        client.schedule(() -> answered(mine, null, agent), REQUEST_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
    }

    private void answered(long which, FetchResult result, SimAgent agent) {
        if (which != attempt) {
            if (result != null) {
                result.release();
            }
            return; // a late answer of an attempt already given up, or a timeout of one already answered
        }
        attempt++;
        if (result != null) {
            read(result.partitions().get(0), agent);
            result.release();
        }
        next(world.between(1_000_000L, 50_000_000L));
    }

    /** The last answer this consumer got, for reports. */
    String lastAnswer() {
        return lastAnswer;
    }

    private void read(PartitionResult partition, SimAgent agent) {
        lastAnswer = agent + " at t=" + world.millis() + " ms: "
                + (partition instanceof PartitionResult.Data data
                        ? data.sizeInBytes() + " bytes, markers " + data.offsets()
                        : partition.toString());
        if (partition instanceof PartitionResult.Error error) {
            if (error.error() == io.floe.agent.fetch.FetchError.OFFSET_OUT_OF_RANGE) {
                if (position < error.offsets().logStartOffset()) {
                    if (!retentionAllowed) {
                        history.violation(
                                "NoAckedLoss",
                                "log start of " + topicPartition + " moved to "
                                        + error.offsets().logStartOffset() + " past unread offset " + position
                                        + " on a topic without retention");
                    }
                    position = error.offsets().logStartOffset();
                } else {
                    history.violation(
                            "MonotoneMarkers",
                            agent + " answered a fetch at " + position + " of "
                                    + topicPartition + " (read up to there from " + lastReadFrom
                                    + ") with OFFSET_OUT_OF_RANGE "
                                    + error.offsets() + ": the high watermark went back");
                }
            }
            return;
        }
        PartitionResult.Data data = (PartitionResult.Data) partition;
        if (readCommitted != null) {
            readCommitted(data, agent);
            return;
        }
        for (StoredBatch batch : StoredBatch.all(data.contiguous())) {
            if (batch.isControlBatch()) {
                skip(batch, agent);
                continue;
            }
            for (StoredRecord record : batch.records()) {
                if (record.offset() < position) {
                    continue;
                }
                requireDense(record.offset(), agent);
                history.observed(
                        new History.Position(topicPartition, record.offset()), History.valueOf(record), "consumer");
                position = record.offset() + 1;
                lastReadFrom = agent.toString();
            }
        }
    }

    /**
     * The Java client's read_committed filter (CompletedFetch): an aborted transaction counts from the
     * first batch its first offset reaches until its producer's abort marker; meanwhile that producer's
     * transactional batches are dropped. Control batches are never returned.
     */
    private void readCommitted(PartitionResult.Data data, SimAgent agent) {
        PriorityQueue<AbortedTransaction> aborted =
                new PriorityQueue<>(Comparator.comparingLong(AbortedTransaction::firstOffset));
        if (control != Control.READ_COMMITTED_IGNORES_ABORTED) {
            aborted.addAll(data.abortedTransactions());
        }
        Set<Long> abortedProducers = new HashSet<>();
        Set<Long> returnedProducers = new HashSet<>(); // for READ_COMMITTED_SKIPS_LATER_BATCHES only
        long lastReturned = -1;
        for (StoredBatch batch : StoredBatch.all(data.contiguous())) {
            if (batch.lastOffset() < position) {
                continue;
            }
            if (batch.hasProducerId()) {
                while (!aborted.isEmpty() && aborted.peek().firstOffset() <= batch.lastOffset()) {
                    abortedProducers.add(aborted.poll().producerId());
                }
                if (MarkerBatch.isAbort(batch)) {
                    abortedProducers.remove(batch.producerId());
                } else if (batch.isTransactional() && abortedProducers.contains(batch.producerId())) {
                    skip(batch, agent);
                    continue;
                }
            }
            if (batch.isControlBatch()) {
                skip(batch, agent);
                continue;
            }
            if (control == Control.READ_COMMITTED_SKIPS_LATER_BATCHES
                    && batch.isTransactional()
                    && !returnedProducers.add(batch.producerId())) {
                skip(batch, agent);
                continue;
            }
            for (StoredRecord record : batch.records()) {
                if (record.offset() < position) {
                    continue;
                }
                requireDense(record.offset(), agent);
                history.readCommitted(new History.Position(topicPartition, record.offset()), History.valueOf(record));
                lastReturned = record.offset();
                position = record.offset() + 1;
                lastReadFrom = agent.toString();
            }
        }
        readCommitted.stableAnswer(topicPartition, data.offsets(), lastReturned, agent.toString());
    }

    /** Passes a batch the application never sees (a marker, or aborted records). */
    private void skip(StoredBatch batch, SimAgent agent) {
        if (batch.lastOffset() < position) {
            return;
        }
        requireDense(Math.max(batch.baseOffset(), position), agent);
        position = batch.lastOffset() + 1;
        lastReadFrom = agent.toString();
    }

    private void requireDense(long offset, SimAgent agent) {
        if (offset != position) {
            history.violation(
                    "UniqueDenseOffsets",
                    agent + ": reading " + topicPartition + " at " + position + " returned offset " + offset + " next");
        }
    }
}
