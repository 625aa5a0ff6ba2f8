package io.floe.agent.transaction;

import io.floe.agent.transaction.InvalidTransactionRequestException.Reason;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.Transactions;
import io.floe.core.transaction.OpenTransaction;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
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
 * before the outcome is returned. The timeout loop ({@link #start}) aborts the transactions of the
 * transactional ids this agent coordinates that ran past their timeout, timed on this agent's clock
 * ({@link TransactionTimeouts}); each round is one read of the open transactions, so its cost follows
 * the transactions open now, not the transactional ids stored. Blocking (every call waits on the
 * store); thread-safe.
 */
public final class TransactionCoordinator implements AutoCloseable {

    /**
     * The longest pause between rounds of the timeout loop (Kafka's
     * transaction.abort.timed.out.transaction.cleanup.interval.ms); a round runs sooner when a
     * transaction it watches reaches its timeout before then.
     */
    public static final Duration TIMEOUT_CHECK_INTERVAL = Duration.ofSeconds(10);

    private static final Logger LOGGER = LoggerFactory.getLogger(TransactionCoordinator.class);

    private final Transactions store;
    private final Clock clock;
    private final Duration maxTimeout;
    private final Duration timeoutCheckInterval;
    private final MarkerListener onMarkers;
    private final Predicate<String> coordinatedHere;
    private final TransactionMetrics metrics;
    private final TransactionTimeouts timeouts = new TransactionTimeouts();
    private ScheduledExecutorService loopExecutor; // guarded by this
    private ScheduledFuture<?> nextRound; // guarded by this
    private boolean closed; // guarded by this

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

    /**
     * Runs the timeout loop on {@code executor} until {@link #close}: a round after each timeout check
     * interval, or sooner, when a watched transaction reaches its timeout first.
     */
    public synchronized void start(ScheduledExecutorService executor) {
        loopExecutor = Objects.requireNonNull(executor, "executor");
        scheduleRound(timeoutCheckInterval);
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
     * One round of the timeout loop: reads the open transactions, times those of the ids this agent
     * coordinates ({@link TransactionTimeouts}), aborts each past its timeout (one that ended meanwhile,
     * or whose producer moved on, is refused by the store and left alone) and refreshes the gauges.
     * Returns how many it aborted.
     */
    public int abortExpired() {
        Instant now = now();
        List<OpenTransaction> coordinated = call(store::openTransactions).stream()
                .filter(transaction -> coordinatedHere.test(transaction.transactionalId()))
                .toList();
        int aborted = 0;
        Set<OpenTransaction> ended = new HashSet<>();
        for (OpenTransaction expired : timeouts.scan(coordinated, now)) {
            Duration seenFor = timeouts.seenFor(expired, now);
            TransactionOutcome outcome = writingMarkers(() ->
                    store.abortExpired(expired.transactionalId(), expired.producer(), expired.startedAtMs(), now));
            timeouts.forget(expired);
            ended.add(expired);
            if (outcome instanceof TransactionOutcome.Done) {
                LOGGER.info(
                        "Aborted a transaction past its timeout transactionalId={} producer={} openHereForMs={}"
                                + " startedAtMs={} timeoutMs={}",
                        expired.transactionalId(),
                        expired.producer(),
                        seenFor.toMillis(),
                        expired.startedAtMs(),
                        expired.timeoutMs());
                metrics.timedOut(expired.transactionalId());
                aborted++;
            } else {
                LOGGER.debug(
                        "Timed-out transaction already ended transactionalId={} outcome={}",
                        expired.transactionalId(),
                        outcome);
            }
            applied(outcome);
        }
        metrics.scanned(
                coordinated.stream().filter(open -> !ended.contains(open)).toList(), timeouts.oldestAge(now));
        return aborted;
    }

    /** How long until the next round should run, at the latest {@code interval} from now. */
    Duration nextRoundIn(Duration interval) {
        Instant now = now();
        return timeouts.nextDeadlineAfter(now)
                .map(deadline -> Duration.between(now, deadline))
                .filter(untilDeadline -> untilDeadline.compareTo(interval) < 0)
                .orElse(interval);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (nextRound != null) {
            nextRound.cancel(false);
        }
    }

    private void runRound() {
        Duration next = timeoutCheckInterval;
        try {
            abortExpired();
            next = nextRoundIn(timeoutCheckInterval);
        } catch (RuntimeException e) {
            LOGGER.warn("cannot abort transactions past their timeout: {}", e.toString());
        } finally {
            scheduleRound(next);
        }
    }

    private synchronized void scheduleRound(Duration delay) {
        if (closed) {
            return;
        }
        try {
            nextRound = loopExecutor.schedule(this::runRound, Math.max(1, delay.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            LOGGER.debug("timeout loop stopped: its executor is shut down");
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
