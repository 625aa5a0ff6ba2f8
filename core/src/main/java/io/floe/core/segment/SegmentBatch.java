package io.floe.core.segment;

import io.floe.core.object.ByteRange;
import java.util.Objects;
import java.util.UUID;

/**
 * One footer entry: where a record batch lies in its segment and what the commit needs to know about
 * it without parsing the batch. Producer fields are Kafka's: {@code -1} for a producer without
 * idempotence.
 */
public record SegmentBatch(
        UUID topicId,
        int partition,
        ByteRange range,
        int recordCount,
        long producerId,
        short producerEpoch,
        int baseSequence,
        long maxTimestamp) {

    public SegmentBatch {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(range, "range");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, got " + partition + " for topic id " + topicId);
        }
        if (recordCount < 0) {
            throw new IllegalArgumentException("recordCount must be >= 0, got " + recordCount + " for topic id "
                    + topicId + " partition " + partition);
        }
    }
}
