package io.floe.simulation;

import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * One simulated process's view of the shared metadata store, with faults (see {@link Faults}), decided
 * by each operation's kind: a write's response may be lost after it applied, a read's only matters
 * before. A commit whose response is lost answers {@link CommitOutcome.Unknown}, as the SQL store does
 * when the connection breaks after the statement was sent; other calls throw a retriable
 * {@link MetadataStoreException}.
 */
final class FaultyMetadataStore extends ForwardingMetadataStore {

    /** The operations that can change what the checker looks at: markers, batch rows, objects' rows. */
    private static final Set<MetadataOperation> LOG_CHANGES = EnumSet.of(
            MetadataOperation.COMMIT,
            MetadataOperation.REWRITE,
            MetadataOperation.TRUNCATE_LOG,
            MetadataOperation.DELETE_RECORDS,
            MetadataOperation.CLEAN_MARKERS,
            MetadataOperation.SCHEDULE_UNREFERENCED,
            MetadataOperation.FORGET_DELETIONS,
            MetadataOperation.CREATE_TOPIC,
            MetadataOperation.DELETE_TOPIC,
            MetadataOperation.CREATE_PARTITIONS,
            MetadataOperation.INIT_PRODUCER,
            MetadataOperation.END_TRANSACTION,
            MetadataOperation.ABORT_EXPIRED,
            MetadataOperation.WRITE_MARKER);

    private final StoreCalls calls;

    private FaultyMetadataStore(MetadataStore store, StoreCalls calls) {
        super(store);
        this.calls = calls;
    }

    /**
     * The shared store as the checker sees it: every call passes through, and {@code onMutation} runs
     * after each call that may have changed the log (not heartbeats, leases, holds or registrations), so
     * the checker looks only when there is news. {@code onCommit} sees every commit with its true
     * outcome, before any fault of the committing process's view: where the store put each batch.
     */
    static MetadataStore observed(
            MetadataStore store,
            Runnable onMutation,
            BiConsumer<ObjectCommit, CommitOutcome> onCommit,
            StoreObserver observer) {
        return new ForwardingMetadataStore(store) {
            @Override
            public CommitOutcome commit(ObjectCommit commit) {
                CommitOutcome outcome = super.commit(commit);
                onCommit.accept(commit, outcome);
                return outcome;
            }

            @Override
            public TransactionOutcome commitPendingOffsets(
                    String transactionalId,
                    ProducerEpoch producer,
                    CoordinatorLease coordinator,
                    Map<TopicPartition, CommittedOffset> offsets,
                    Instant now) {
                TransactionOutcome outcome =
                        super.commitPendingOffsets(transactionalId, producer, coordinator, offsets, now);
                observer.pendingOffsetsCommitted(coordinator.groupId(), offsets, outcome);
                return outcome;
            }

            @Override
            public Map<TopicPartition, CommittedOffset> committedOffsets(String groupId) {
                Map<TopicPartition, CommittedOffset> committed = super.committedOffsets(groupId);
                observer.committedOffsetsRead(groupId);
                return committed;
            }

            @Override
            public FetchedOffsets fetchOffsets(String groupId) {
                FetchedOffsets fetched = super.fetchOffsets(groupId);
                observer.committedOffsetsRead(groupId);
                return fetched;
            }

            @Override
            protected <T> T call(MetadataOperation operation, Supplier<T> call) {
                try {
                    return call.get();
                } finally {
                    if (LOG_CHANGES.contains(operation)) {
                        onMutation.run();
                    }
                    observer.applied(operation);
                }
            }
        };
    }

    /**
     * What the shared store tells the checkers as calls apply, in the order they apply (nothing runs
     * between a call and its report): every call, and the calls about group offsets with their arguments.
     */
    interface StoreObserver {

        StoreObserver NONE = new StoreObserver() {};

        /** {@code operation} applied, or failed. */
        default void applied(MetadataOperation operation) {}

        /** A TxnOffsetCommit's offsets were stored pending (or refused: {@code outcome}). */
        default void pendingOffsetsCommitted(
                String groupId, Map<TopicPartition, CommittedOffset> offsets, TransactionOutcome outcome) {}

        /** The committed offsets of {@code groupId} were read. */
        default void committedOffsetsRead(String groupId) {}
    }

    /**
     * A negative control: {@code store} ends every transaction its client commits as an abort (abort
     * markers, its pending offsets dropped) and answers done, as the commit it was asked for would be.
     */
    static MetadataStore abortingCommits(MetadataStore store) {
        return new ForwardingMetadataStore(store) {
            @Override
            public TransactionOutcome endTransaction(
                    String transactionalId, ProducerEpoch producer, boolean commit, boolean bumpEpoch, Instant now) {
                return super.endTransaction(transactionalId, producer, false, bumpEpoch, now);
            }
        };
    }

    static MetadataStore wrap(MetadataStore store, StoreCalls calls) {
        return new FaultyMetadataStore(store, calls);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <T> T call(MetadataOperation operation, Supplier<T> call) {
        Supplier<T> lostResponse = operation == MetadataOperation.COMMIT
                ? () -> (T) new CommitOutcome.Unknown(new TimeoutException("injected: commit applied, response lost"))
                : null;
        return calls.call(
                operation.kind().mutates(),
                call,
                () -> new MetadataStoreException("injected: " + operation + " failed", true, null),
                lostResponse);
    }

    /** The process's view closes with it; the shared store stays open. */
    @Override
    public void close() {}
}
