package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.ProducerState;

/** The idempotent-producer rules, as a pure function of the stored history and the incoming batch. */
final class SequenceCheck {

    sealed interface Verdict {}

    /** Append the batch. */
    record Accept() implements Verdict {}

    /** A retry of a batch stored at {@code baseOffset}: answer with that offset, store nothing. */
    record Duplicate(long baseOffset) implements Verdict {}

    record Refuse(AppendError error, String message) implements Verdict {}

    private static final Accept ACCEPT = new Accept();

    private SequenceCheck() {}

    /** {@code history} is null when nothing is stored for the producer on this partition. */
    static Verdict check(ProducerHistory history, ProducerState batch, TopicPartition partition) {
        if (history == null) {
            return ACCEPT;
        }
        String producer = "producer " + batch.producerId() + " epoch " + batch.producerEpoch() + " on " + partition;
        if (batch.producerEpoch() < history.epoch()) {
            return new Refuse(AppendError.PRODUCER_FENCED,
                    producer + " is fenced: epoch " + history.epoch() + " is already in use");
        }
        if (batch.producerEpoch() > history.epoch()) {
            return batch.baseSequence() == 0 ? ACCEPT : new Refuse(AppendError.OUT_OF_ORDER_SEQUENCE,
                    producer + ": a new epoch must start at sequence 0, got " + batch.baseSequence());
        }
        var original = history.find(batch.baseSequence(), batch.lastSequence());
        if (original.isPresent()) {
            return new Duplicate(original.get().baseOffset());
        }
        int expected = nextSequence(history.lastSequence());
        if (batch.baseSequence() == expected) {
            return ACCEPT;
        }
        if (isBehind(batch, history.lastSequence())) {
            // Sequences of one epoch are stored contiguously, so a retry ending at or before the last
            // stored sequence was stored; it is only older than the remembered batches (its producer
            // kept retrying while later batches were answered, e.g. after unknown commit outcomes).
            return new Duplicate(AppendResult.Duplicate.UNKNOWN_OFFSET);
        }
        return new Refuse(AppendError.OUT_OF_ORDER_SEQUENCE,
                producer + ": out of order sequence, expected " + expected + ", got " + batch.baseSequence());
    }

    /** True when the batch lies wholly at or before {@code lastSequence} (within half the sequence space). */
    static boolean isBehind(ProducerState batch, int lastSequence) {
        long distance = ((long) lastSequence - batch.lastSequence() + (1L << 31)) % (1L << 31);
        return batch.baseSequence() <= batch.lastSequence() && distance < (1L << 30);
    }

    /** Sequences wrap from Integer.MAX_VALUE to 0, as in Kafka. */
    static int nextSequence(int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }
}
