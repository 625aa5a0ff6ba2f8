package io.floe.core.metadata;

import io.floe.core.log.TopicPartition;
import io.floe.core.object.ByteRange;
import java.util.Objects;
import java.util.UUID;

/**
 * One batch of an uploaded object that a commit appends to a partition's log. {@code topicId}
 * guards against a topic deleted and re-created under the same name while the batch was in flight;
 * {@code transaction} says how the commit checks it against its producer's transaction.
 */
public record BatchAppend(
        TopicPartition topicPartition,
        UUID topicId,
        ByteRange range,
        int recordCount,
        long maxTimestamp,
        ProducerState producer,
        TransactionalAppend transaction) {

    public BatchAppend {
        Objects.requireNonNull(topicPartition, "topicPartition");
        Objects.requireNonNull(transaction, "transaction");
        if (transaction.transactional() && !producer.idempotent()) {
            throw new IllegalArgumentException("a transactional batch has a producer id");
        }
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(producer, "producer");
        if (recordCount < 1) {
            throw new IllegalArgumentException("a batch holds at least one record, got " + recordCount);
        }
    }

    /** A batch outside any transaction. */
    public BatchAppend(
            TopicPartition topicPartition,
            UUID topicId,
            ByteRange range,
            int recordCount,
            long maxTimestamp,
            ProducerState producer) {
        this(topicPartition, topicId, range, recordCount, maxTimestamp, producer, TransactionalAppend.NONE);
    }
}
