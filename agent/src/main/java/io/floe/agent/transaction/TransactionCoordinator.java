package io.floe.agent.transaction;

import io.floe.agent.transaction.InvalidTransactionRequestException.Reason;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.Transactions;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's transaction coordinator over the store's {@link Transactions} role. Stateless: each
 * operation checks its inputs (throwing {@link InvalidTransactionRequestException}, before the store is
 * asked) and is then one store operation, whose outcome it returns; store failures are thrown as the
 * store throws them. The markers of every {@link TransactionOutcome.Done} go to the marker listener
 * before the outcome is returned. The timeout loop ({@link #start}) aborts the expired transactions
 * of the transactional ids this agent coordinates. Blocking (every call waits on the store); thread-safe.
 */
public final class TransactionCoordinator implements AutoCloseable {

    /** How often expired transactions are aborted (Kafka's transaction.abort.timed.out.transaction.cleanup.interval.ms). */
    public static final Duration TIMEOUT_CHECK_INTERVAL = Duration.ofSeconds(10);

    private static final Logger LOGGER = LoggerFactory.getLogger(TransactionCoordinator.class);

    private final Transactions store;
    private final Clock clock;
    private final Duration maxTimeout;
    private final Duration timeoutCheckInterval;
    private final MarkerListener onMarkers;
    private final Predicate<String> coordinatedHere;
    private final TransactionMetrics metrics;
    private volatile ScheduledFuture<?> timeoutLoop;

    /**
     * @param maxTimeout the largest {@code transaction.timeout.ms} accepted ({@code transaction.max.timeout.ms})
     * @param timeoutCheckInterval the pause between rounds of the timeout loop ({@link #TIMEOUT_CHECK_INTERVAL} in agents)
     * @param onMarkers told the markers every applied operation appended, in partition order, and of
     *     every operation that may have written markers but failed
     * @param coordinatedHere whether this agent coordinates a transactional id (aborts its expired transactions)
     */
    public TransactionCoordinator(
            Transactions store,
            Clock clock,
            Duration maxTimeout,
            Duration timeoutCheckInterval,
            MarkerListener onMarkers,
            Predicate<String> coordinatedHere,
            MeterRegistry meters) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxTimeout = Objects.requireNonNull(maxTimeout, "maxTimeout");
        if (timeoutCheckInterval.isNegative() || timeoutCheckInterval.isZero()) {
            throw new IllegalArgumentException("timeout check interval must be > 0, got " + timeoutCheckInterval);
        }
        this.timeoutCheckInterval = timeoutCheckInterval;
        this.onMarkers = Objects.requireNonNull(onMarkers, "onMarkers");
        this.coordinatedHere = Objects.requireNonNull(coordinatedHere, "coordinatedHere");
        this.metrics = new TransactionMetrics(meters);
    }

    /** Runs the timeout loop on {@code executor}, a round every timeout check interval, until {@link #close}. */
    public void start(ScheduledExecutorService executor) {
        long intervalMs = timeoutCheckInterval.toMillis();
        timeoutLoop = executor.scheduleWithFixedDelay(
                this::checkTimeoutsQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    /** The largest {@code transaction.timeout.ms} accepted. */
    public Duration maxTimeout() {
        return maxTimeout;
    }

    /**
     * InitProducerId for a transactional id: fences earlier epochs and aborts a transaction left open.
     * {@code expected} is the producer id and epoch a recovering producer holds (KIP-360), else null.
     */
    public TransactionOutcome initProducer(String transactionalId, int timeoutMs, ProducerEpoch expected) {
        requireId(transactionalId);
        if (timeoutMs <= 0 || timeoutMs > maxTimeout.toMillis()) {
            metrics.error(Reason.INVALID_TRANSACTION_TIMEOUT.name());
            throw new InvalidTransactionRequestException(
                    Reason.INVALID_TRANSACTION_TIMEOUT,
                    "transaction.timeout.ms " + timeoutMs + " of transactional id " + transactionalId
                            + " is outside 1.." + maxTimeout.toMillis() + " (transaction.max.timeout.ms)");
        }
        TransactionOutcome outcome =
                writingMarkers(() -> store.initProducer(transactionalId, timeoutMs, expected, now()));
        if (outcome instanceof TransactionOutcome.Done done && !done.markers().isEmpty()) {
            LOGGER.info(
                    "InitProducerId aborted the open transaction transactionalId={} producer={} markers={}",
                    transactionalId,
                    done.producer(),
                    done.markers().size());
            metrics.aborted(transactionalId);
        }
        return applied(outcome);
    }

    /** AddPartitionsToTxn: adds partitions to the producer's transaction, beginning one when none is open. */
    public TransactionOutcome addPartitions(
            String transactionalId, ProducerEpoch producer, Collection<TopicPartition> partitions) {
        requireId(transactionalId);
        Objects.requireNonNull(producer, "producer");
        return applied(call(() -> store.addPartitions(transactionalId, producer, partitions, now())));
    }

    /** AddOffsetsToTxn: begins the producer's transaction when none is open, for offsets of {@code groupId}. */
    public TransactionOutcome addOffsets(String transactionalId, ProducerEpoch producer, String groupId) {
        requireId(transactionalId);
        requireGroup(groupId);
        Objects.requireNonNull(producer, "producer");
        return applied(call(() -> store.addOffsets(transactionalId, producer, groupId, now())));
    }

    /**
     * TxnOffsetCommit: keeps the offsets pending in the producer's open transaction, while the group's
     * coordinator still holds {@code coordinator} (else refused as NOT_COORDINATOR).
     */
    public TransactionOutcome commitPendingOffsets(
            String transactionalId,
            ProducerEpoch producer,
            CoordinatorLease coordinator,
            Map<TopicPartition, CommittedOffset> offsets) {
        requireId(transactionalId);
        requireGroup(coordinator.groupId());
        Objects.requireNonNull(producer, "producer");
        return applied(call(() -> store.commitPendingOffsets(transactionalId, producer, coordinator, offsets, now())));
    }

    /** EndTxn: commits or aborts; with {@code bumpEpoch} (transaction version 2) the outcome carries the next epoch. */
    public TransactionOutcome endTransaction(
            String transactionalId, ProducerEpoch producer, boolean commit, boolean bumpEpoch) {
        requireId(transactionalId);
        Objects.requireNonNull(producer, "producer");
        TransactionOutcome outcome =
                writingMarkers(() -> store.endTransaction(transactionalId, producer, commit, bumpEpoch, now()));
        if (outcome instanceof TransactionOutcome.Done) {
            if (commit) {
                metrics.committed(transactionalId);
            } else {
                metrics.aborted(transactionalId);
            }
        }
        return applied(outcome);
    }

    /** WriteTxnMarkers: an operator ends {@code producer}'s open transaction on one partition. */
    public TransactionOutcome writeMarker(
            TopicPartition partition, ProducerEpoch producer, boolean commit, int coordinatorEpoch) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(producer, "producer");
        TransactionOutcome outcome =
                writingMarkers(() -> store.writeMarker(partition, producer, commit, coordinatorEpoch, now()));
        if (outcome instanceof TransactionOutcome.Done done && !done.markers().isEmpty()) {
            LOGGER.info(
                    "Wrote a transaction marker on request partition={} producer={} commit={}",
                    partition,
                    producer,
                    commit);
        }
        return applied(outcome);
    }

    /** The transactional id as stored. */
    public Optional<TransactionDescription> describe(String transactionalId) {
        requireId(transactionalId);
        return call(() -> store.transaction(transactionalId));
    }

    /** Every transactional id, sorted by id. */
    public List<TransactionDescription> list() {
        return call(store::transactions);
    }

    /**
     * One round of the timeout loop: aborts each expired transaction of an id this agent coordinates
     * (a transaction ended or fenced meanwhile is refused by the store and left alone), then reads the
     * open transactions for the metrics. Returns how many it aborted.
     */
    public int abortExpired() {
        Instant now = now();
        int aborted = 0;
        for (TransactionDescription expired : call(() -> store.expiredTransactions(now))) {
            String id = expired.transactionalId();
            if (!coordinatedHere.test(id)) {
                continue;
            }
            TransactionOutcome outcome = writingMarkers(() -> store.abortExpired(id, expired.producer(), now));
            if (outcome instanceof TransactionOutcome.Done done) {
                LOGGER.info(
                        "Aborted an expired transaction transactionalId={} producer={} startedAtMs={} timeoutMs={}",
                        id,
                        expired.producer(),
                        expired.startedAtMs(),
                        expired.timeoutMs());
                metrics.timedOut(id);
                aborted++;
            } else {
                LOGGER.debug("Expired transaction already ended transactionalId={} outcome={}", id, outcome);
            }
            applied(outcome);
        }
        metrics.scanned(
                call(store::transactions).stream()
                        .filter(transaction -> coordinatedHere.test(transaction.transactionalId()))
                        .toList(),
                now.toEpochMilli());
        return aborted;
    }

    @Override
    public void close() {
        ScheduledFuture<?> loop = timeoutLoop;
        if (loop != null) {
            loop.cancel(false);
        }
    }

    private void checkTimeoutsQuietly() {
        try {
            abortExpired();
        } catch (RuntimeException e) {
            LOGGER.warn("cannot abort expired transactions: {}", e.toString());
        }
    }

    /** Counts a refusal, hands the markers of an applied operation on; returns the outcome. */
    private TransactionOutcome applied(TransactionOutcome outcome) {
        if (outcome instanceof TransactionOutcome.Done done && !done.markers().isEmpty()) {
            handOn(done.markers());
        } else if (outcome instanceof TransactionOutcome.Refused refused) {
            metrics.error(refused.error().name());
        } else if (outcome instanceof TransactionOutcome.UnknownPartitions) {
            metrics.error("UNKNOWN_TOPIC_OR_PARTITION");
        }
        return outcome;
    }

    private void handOn(List<TransactionMarker> markers) {
        try {
            onMarkers.written(markers);
        } catch (RuntimeException e) {
            // The markers are committed; a listener's failure must not turn the client's answer into an error.
            LOGGER.warn("marker listener failed markers={}: {}", markers.size(), e.toString());
        }
    }

    /**
     * As {@link #call}, for an operation that may write markers: when it fails, the store may have
     * applied it all the same, so the listener learns that markers may have been written unseen.
     */
    private <T> T writingMarkers(Supplier<T> operation) {
        try {
            return call(operation);
        } catch (RuntimeException e) {
            try {
                onMarkers.mayHaveWritten();
            } catch (RuntimeException listenerFailure) {
                e.addSuppressed(listenerFailure);
            }
            throw e;
        }
    }

    private <T> T call(Supplier<T> operation) {
        try {
            return operation.get();
        } catch (RuntimeException e) {
            metrics.error("store");
            throw e;
        }
    }

    private Instant now() {
        return clock.instant();
    }

    private void requireId(String transactionalId) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            metrics.error(Reason.INVALID_REQUEST.name());
            throw new InvalidTransactionRequestException(Reason.INVALID_REQUEST, "a transactional id is required");
        }
    }

    private void requireGroup(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            metrics.error(Reason.INVALID_REQUEST.name());
            throw new InvalidTransactionRequestException(Reason.INVALID_REQUEST, "a group id is required");
        }
    }
}
