package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.ProducerState;

/**
 * The idempotent-producer rules, as a pure function of the stored history and the incoming batch.
 *
 * <p>A batch is a duplicate only when it is known to be stored: it is one of the producer's last
 * batches, or its sequences lie within what its epoch stored on the partition. An epoch's stored
 * sequences are contiguous because each epoch must start at sequence 0 on the partition, also when
 * nothing of the producer is stored there (a new producer, or one whose state expired): otherwise a
 * later batch that overtook an earlier one (the earlier's upload failed, or it waits on another
 * agent) would be stored first, and the earlier one's retry would look like a duplicate of it. Such
 * a batch is refused as out of order instead, which clients retry while earlier batches are in
 * flight; a producer whose state expired bumps its epoch and starts again at 0, as the Java client
 * and librdkafka do on that error.
 */
final class SequenceCheck {

    sealed interface Verdict {}

    /** Append the batch. */
    record Accept() implements Verdict {}

    /** A retry of a stored batch: answer with {@code baseOffset} (or unknown), store nothing. */
    record Duplicate(long baseOffset) implements Verdict {}

    record Refuse(AppendError error, String message) implements Verdict {}

    private static final Accept ACCEPT = new Accept();

    private SequenceCheck() {}

    /**
     * The verdict on an idempotent batch: {@link #check} by its sequences, and a transactional duplicate
     * only {@link #inOpenTransaction within the open transaction}.
     */
    static Verdict check(ProducerHistory history, BatchAppend batch) {
        Verdict verdict = check(history, batch.producer(), batch.topicPartition());
        if (verdict instanceof Duplicate duplicate && batch.transaction().transactional()) {
            return inOpenTransaction(history, duplicate, batch.producer(), batch.topicPartition());
        }
        return verdict;
    }

    /** {@code history} is null when nothing is stored for the producer on this partition. */
    static Verdict check(ProducerHistory history, ProducerState batch, TopicPartition partition) {
        if (history == null) {
            return batch.baseSequence() == 0
                    ? ACCEPT
                    : new Refuse(
                            AppendError.OUT_OF_ORDER_SEQUENCE,
                            producer(batch, partition)
                                    + " has no state on the partition (new, or expired after producer.id.expiration.ms):"
                                    + " its first batch must start at sequence 0, got " + batch.baseSequence());
        }
        if (batch.producerEpoch() < history.epoch()) {
            return new Refuse(
                    AppendError.PRODUCER_FENCED,
                    producer(batch, partition) + " is fenced: epoch " + history.epoch() + " is already in use");
        }
        if (batch.producerEpoch() > history.epoch()) {
            return batch.baseSequence() == 0
                    ? ACCEPT
                    : new Refuse(
                            AppendError.OUT_OF_ORDER_SEQUENCE,
                            producer(batch, partition) + ": a new epoch must start at sequence 0, got "
                                    + batch.baseSequence());
        }
        var original = history.find(batch.baseSequence(), batch.lastSequence());
        if (original.isPresent()) {
            return new Duplicate(original.get().baseOffset());
        }
        int expected = nextSequence(history.lastSequence());
        if (batch.baseSequence() == expected) {
            return ACCEPT;
        }
        if (history.stored(batch.baseSequence(), batch.lastSequence())) {
            // Stored in this epoch, older than the remembered batches: its producer kept retrying while
            // later batches were answered (unknown commit outcomes). Its offset is no longer known.
            return new Duplicate(AppendResult.Duplicate.UNKNOWN_OFFSET);
        }
        return new Refuse(
                AppendError.OUT_OF_ORDER_SEQUENCE,
                producer(batch, partition) + ": out of order sequence, expected " + expected + ", got "
                        + batch.baseSequence());
    }

    /**
     * A transactional batch's duplicate is answered as stored only within the producer's open
     * transaction on the partition: its original lies at or after that transaction's first offset
     * there. A retry of a batch whose transaction has ended at the same epoch (a version 1 end, an
     * operator's marker) would otherwise tell the producer that its next transaction holds a batch it
     * never got; with transaction version 2 that answer also begins nothing, and the producer's
     * EndTxn(commit) then finds no open transaction. Refused instead: the producer aborts. An original
     * whose offset is no longer known passes while a transaction is open on the partition.
     */
    static Verdict inOpenTransaction(
            ProducerHistory history, Duplicate duplicate, ProducerState batch, TopicPartition partition) {
        long first = history.txnFirstOffset();
        boolean open = first != ProducerHistory.NO_TRANSACTION
                && (duplicate.baseOffset() == AppendResult.Duplicate.UNKNOWN_OFFSET || duplicate.baseOffset() >= first);
        if (open) {
            return duplicate;
        }
        return new Refuse(
                AppendError.INVALID_TXN_STATE,
                producer(batch, partition) + ": sequences " + batch.baseSequence() + ".." + batch.lastSequence()
                        + " were stored by a transaction that has ended"
                        + (first == ProducerHistory.NO_TRANSACTION
                                ? " (none is open on the partition)"
                                : " (the open one starts at offset " + first + ")")
                        + ": a retry of them cannot join the open transaction; abort it");
    }

    /** Built only for a refusal: accepted batches, most of them, cost no string. */
    private static String producer(ProducerState batch, TopicPartition partition) {
        return "producer " + batch.producerId() + " epoch " + batch.producerEpoch() + " on " + partition;
    }

    /** Sequences wrap from Integer.MAX_VALUE to 0, as in Kafka. */
    static int nextSequence(int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }
}
