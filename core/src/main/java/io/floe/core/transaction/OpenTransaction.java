package io.floe.core.transaction;

import java.util.Objects;

/**
 * An open transaction as the timeout loop needs it: which transactional id and producer epoch it
 * belongs to, when it began and how long it may run. The begin time was stamped by whichever agent
 * began it, on that agent's clock: together with the producer epoch it names the transaction (a later
 * one of the same epoch begins at another time), but it is not compared with another agent's clock.
 *
 * @param startedAtMs when the transaction began, epoch milliseconds on the clock of the agent that began it
 * @param timeoutMs the producer's {@code transaction.timeout.ms}
 */
public record OpenTransaction(String transactionalId, ProducerEpoch producer, long startedAtMs, int timeoutMs) {

    public OpenTransaction {
        Objects.requireNonNull(transactionalId, "transactionalId");
        Objects.requireNonNull(producer, "producer");
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("transaction timeout must be > 0, got " + timeoutMs);
        }
    }
}
