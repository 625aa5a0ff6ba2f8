package io.floe.core.metadata;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.OpenTransaction;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionOutcome;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The metadata role of Kafka transactions: each transactional id's producer and its open transaction,
 * kept wholly in the store. Every operation is one store transaction that checks the producer id and
 * epoch against the stored ones, so whichever agent serves a request, a fenced producer changes
 * nothing. Ending a transaction appends its markers to every partition it wrote, moves its pending
 * offsets to the groups' committed offsets and records the outcome, all at once: there is no window
 * in which a transaction is decided but not complete. Follows the
 * {@linkplain io.floe.core.metadata package contract}; each method's kind is its
 * {@link MetadataOperation}.
 *
 * <p>Locks are taken in one order by every write: transactional ids' rows (by producer id), then a
 * group's coordinator lease, then partitions (by id), then producers' partition state.
 */
public interface Transactions {

    /**
     * InitProducerId for {@code transactionalId}: a new producer id at epoch 0 for an id never seen,
     * else the id's producer at the next epoch (a new producer id once the epoch is exhausted), which
     * fences every holder of an earlier epoch; a transaction left open is aborted first (its markers
     * are in the outcome). {@code expected} (KIP-360: a producer recovering its own id) must be the
     * current producer and epoch, or the one before the last bump (a retry), else the outcome is
     * {@link io.floe.core.transaction.TransactionError#PRODUCER_FENCED}; null for a producer that
     * starts afresh. Fenced.
     */
    TransactionOutcome initProducer(String transactionalId, int timeoutMs, ProducerEpoch expected, Instant now);

    /**
     * AddPartitionsToTxn: adds {@code partitions} to the producer's transaction, beginning one at
     * {@code now} when none is open. Refused for another producer or epoch; none is added when one does
     * not exist ({@link TransactionOutcome.UnknownPartitions}). Fenced.
     */
    TransactionOutcome addPartitions(
            String transactionalId, ProducerEpoch producer, Collection<TopicPartition> partitions, Instant now);

    /**
     * AddOffsetsToTxn: begins the producer's transaction at {@code now} when none is open, so that its
     * offsets for {@code groupId} can follow. Fenced.
     */
    TransactionOutcome addOffsets(String transactionalId, ProducerEpoch producer, String groupId, Instant now);

    /**
     * TxnOffsetCommit: keeps {@code offsets} of group {@code coordinator.groupId()} pending in the
     * producer's transaction, beginning one at {@code now} when none is open (clients of transaction
     * version 2 send no AddOffsetsToTxn), and replacing its earlier pending offsets for the same
     * partitions; they become the group's committed offsets when the transaction commits, and are
     * dropped when it aborts. Like {@link ConsumerOffsets#commitOffsets(CoordinatorLease, Map)}, only
     * while the group's coordinator lease is still held by {@code coordinator.owner()} at
     * {@code coordinator.epoch()}, checked in the same store transaction: else
     * {@link io.floe.core.transaction.TransactionError#NOT_COORDINATOR} and nothing changes, so the
     * member check the coordinator made in its memory cannot be stale. Topics are not checked. Fenced.
     */
    TransactionOutcome commitPendingOffsets(
            String transactionalId,
            ProducerEpoch producer,
            CoordinatorLease coordinator,
            Map<TopicPartition, CommittedOffset> offsets,
            Instant now);

    /**
     * EndTxn: commits or aborts the producer's open transaction. Appends a marker to each partition
     * the transaction wrote to (a partition added but never written gets none), moves or drops its
     * pending offsets and records the outcome. With {@code bumpEpoch} (transaction version 2) the
     * producer continues at the next epoch (or a new producer id), which the outcome carries. A retry
     * of an end that applied (the same decision, at the epoch before the bump for version 2) is
     * {@link TransactionOutcome.Done} again, with no markers. Fenced.
     */
    TransactionOutcome endTransaction(
            String transactionalId, ProducerEpoch producer, boolean commit, boolean bumpEpoch, Instant now);

    /**
     * Aborts the open transaction of {@code transactionalId} that began at {@code startedAtMs} (as
     * {@link #openTransactions} listed it) at {@code producer}'s epoch, which the caller timed out on its
     * own clock, and bumps the epoch so that the producer is fenced. Refused ({@code INVALID_TXN_STATE})
     * when that transaction is no longer open (it ended, or another began since), and as elsewhere when
     * the producer is not current. The store does not compare times: the begin time was stamped on
     * another agent's clock. Fenced.
     */
    TransactionOutcome abortExpired(String transactionalId, ProducerEpoch producer, long startedAtMs, Instant now);

    /**
     * WriteTxnMarkers (an operator aborting a hanging transaction): ends {@code producer}'s open
     * transaction on {@code partition} alone with a marker; {@link TransactionOutcome.Done} with no
     * markers when none is open; refused as {@code PRODUCER_FENCED} when the producer's epoch on the
     * partition is newer than {@code producer}'s. Fenced.
     */
    TransactionOutcome writeMarker(
            TopicPartition partition, ProducerEpoch producer, boolean commit, int coordinatorEpoch, Instant now);

    /** The transactional id as stored, or empty when it has never had a producer. */
    Optional<TransactionDescription> transaction(String transactionalId);

    /** Every transactional id, sorted by id. */
    List<TransactionDescription> transactions();

    /**
     * Every open transaction, sorted by transactional id: one read of the open rows alone (through an
     * index), so its cost follows the transactions open now, never the transactional ids stored.
     */
    List<OpenTransaction> openTransactions();

    /**
     * Forgets the transactional ids with no open transaction whose last change is older than
     * {@code idleBefore} (Kafka's {@code transactional.id.expiration.ms}); returns how many. A producer
     * that still holds such an id's producer id is refused from then on; its next InitProducerId starts
     * afresh with a new producer id. Idempotent.
     */
    int expireTransactionalIds(Instant idleBefore);
}
