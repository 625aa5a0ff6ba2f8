package io.floe.metadata.sql;

import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionState;

/**
 * A transactional id's row of {@code transactions}. {@code lastEpoch} is the epoch before the last
 * bump and {@code previousProducerId} the producer id before the last epoch overflow (-1 when none):
 * a retry of a request whose answer was lost still carries them. {@code startedAt} is -1 while no
 * transaction is open.
 */
record TransactionRow(
        String transactionalId,
        long producerId,
        short epoch,
        short lastEpoch,
        long previousProducerId,
        TransactionState state,
        int timeoutMs,
        long startedAt,
        long updatedAt) {

    static final short NO_EPOCH = -1;
    static final long NO_PRODUCER_ID = -1;
    static final long NOT_STARTED = -1;

    /** Kafka bumps to a new producer id once the epoch would reach {@code Short.MAX_VALUE}. */
    static final short LAST_EPOCH = Short.MAX_VALUE - 1;

    static TransactionRow fresh(String transactionalId, long producerId, int timeoutMs, long now) {
        return new TransactionRow(
                transactionalId,
                producerId,
                (short) 0,
                NO_EPOCH,
                NO_PRODUCER_ID,
                TransactionState.EMPTY,
                timeoutMs,
                NOT_STARTED,
                now);
    }

    ProducerEpoch producer() {
        return new ProducerEpoch(producerId, epoch);
    }

    boolean exhausted() {
        return epoch >= LAST_EPOCH;
    }

    /**
     * The next epoch, or epoch 0 of {@code nextProducerId} once this one is exhausted (that id is then
     * used up; otherwise it is left unused). With {@code retryable} the epoch before stays known, so that
     * the producer that asked for the bump can repeat its request; a bump that fences (a new producer's
     * InitProducerId, a timeout) forgets it, so no holder of an older epoch is ever answered again.
     */
    TransactionRow bumped(long nextProducerId, long now, boolean retryable) {
        if (exhausted()) {
            return new TransactionRow(
                    transactionalId,
                    nextProducerId,
                    (short) 0,
                    NO_EPOCH,
                    retryable ? producerId : NO_PRODUCER_ID,
                    state,
                    timeoutMs,
                    startedAt,
                    now);
        }
        return new TransactionRow(
                transactionalId,
                producerId,
                (short) (epoch + 1),
                retryable ? epoch : NO_EPOCH,
                NO_PRODUCER_ID,
                state,
                timeoutMs,
                startedAt,
                now);
    }

    TransactionRow begun(long now) {
        return new TransactionRow(
                transactionalId,
                producerId,
                epoch,
                lastEpoch,
                previousProducerId,
                TransactionState.ONGOING,
                timeoutMs,
                now,
                now);
    }

    TransactionRow ended(TransactionState outcome, long now) {
        return new TransactionRow(
                transactionalId,
                producerId,
                epoch,
                lastEpoch,
                previousProducerId,
                outcome,
                timeoutMs,
                NOT_STARTED,
                now);
    }

    TransactionRow withTimeout(int newTimeoutMs) {
        return new TransactionRow(
                transactionalId,
                producerId,
                epoch,
                lastEpoch,
                previousProducerId,
                state,
                newTimeoutMs,
                startedAt,
                updatedAt);
    }
}
