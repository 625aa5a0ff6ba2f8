package io.floe.agent.fetch;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import java.nio.ByteBuffer;

/** The answer for one partition of a fetch. */
public sealed interface PartitionResult {

    TopicPartition topicPartition();

    /**
     * Record batches (possibly none) starting at or before the fetch offset, with their offsets patched
     * in, concatenated in {@code records}.
     */
    record Data(TopicPartition topicPartition, LogOffsets offsets, ByteBuffer records) implements PartitionResult {}

    /** No records, for {@code error}; {@code offsets} are known for OFFSET_OUT_OF_RANGE, else {@link LogOffsets#EMPTY}. */
    record Error(TopicPartition topicPartition, FetchError error, LogOffsets offsets, String message)
            implements PartitionResult {}
}
