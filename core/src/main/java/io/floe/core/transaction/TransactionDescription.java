package io.floe.core.transaction;

import io.floe.core.log.TopicPartition;
import java.util.Objects;
import java.util.Set;

/**
 * A transactional id as the store holds it.
 *
 * @param producer its current producer id and epoch
 * @param timeoutMs the producer's {@code transaction.timeout.ms}
 * @param startedAtMs when the open transaction began (its first partition or offsets), epoch
 *     milliseconds; -1 when none is open
 * @param updatedAtMs when the transactional id's state last changed
 * @param partitions the partitions of the open transaction (empty when none is open)
 * @param offsetGroups the consumer groups with offsets pending in the open transaction
 */
public record TransactionDescription(
        String transactionalId,
        ProducerEpoch producer,
        TransactionState state,
        int timeoutMs,
        long startedAtMs,
        long updatedAtMs,
        Set<TopicPartition> partitions,
        Set<String> offsetGroups) {

    public static final long NOT_STARTED = -1;

    public TransactionDescription {
        Objects.requireNonNull(transactionalId, "transactionalId");
        Objects.requireNonNull(producer, "producer");
        Objects.requireNonNull(state, "state");
        partitions = Set.copyOf(partitions);
        offsetGroups = Set.copyOf(offsetGroups);
    }
}
