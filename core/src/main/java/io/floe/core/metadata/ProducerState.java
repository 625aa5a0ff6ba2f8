package io.floe.core.metadata;

/**
 * The idempotent-producer fields of one batch: producer id, epoch and the sequence numbers of its
 * first and last record. {@link #NONE} for batches from non-idempotent producers.
 */
public record ProducerState(long producerId, short producerEpoch, int baseSequence, int lastSequence) {

    public static final long NO_PRODUCER_ID = -1L;
    public static final ProducerState NONE = new ProducerState(NO_PRODUCER_ID, (short) -1, -1, -1);

    public boolean idempotent() {
        return producerId >= 0;
    }
}
