package io.floe.core.metadata;

import io.floe.core.log.TopicPartition;
import java.util.Objects;

/**
 * One partition's part of {@link MetadataStore#batches(java.util.List)}: its committed batches with
 * {@code lastOffset >= fromOffset}, at most {@code maxBatches} of them.
 */
public record BatchesQuery(TopicPartition topicPartition, long fromOffset, int maxBatches) {

    public BatchesQuery {
        Objects.requireNonNull(topicPartition, "topicPartition");
        if (maxBatches < 0) {
            throw new IllegalArgumentException("maxBatches must be >= 0, got " + maxBatches);
        }
    }
}
