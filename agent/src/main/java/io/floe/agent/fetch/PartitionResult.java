package io.floe.agent.fetch;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import java.nio.ByteBuffer;
import java.util.List;

/** The answer for one partition of a fetch. */
public sealed interface PartitionResult {

    TopicPartition topicPartition();

    /**
     * Record batches (possibly none) starting at or before the fetch offset, with their offsets patched
     * in: the concatenation of the {@code chunks}, which are slices of cached or read objects, handed
     * out without copying them into one buffer.
     */
    record Data(TopicPartition topicPartition, LogOffsets offsets, List<ByteBuffer> chunks) implements PartitionResult {

        public Data {
            chunks = List.copyOf(chunks);
        }

        /** Bytes of record batches in all chunks. */
        public int sizeInBytes() {
            int size = 0;
            for (ByteBuffer chunk : chunks) {
                size += chunk.remaining();
            }
            return size;
        }

        /** The records in one buffer: a copy when they span several chunks (for tools and tests). */
        public ByteBuffer contiguous() {
            if (chunks.size() == 1) {
                return chunks.get(0).duplicate();
            }
            ByteBuffer all = ByteBuffer.allocate(sizeInBytes());
            chunks.forEach(chunk -> all.put(chunk.duplicate()));
            return all.flip();
        }
    }

    /** No records, for {@code error}; {@code offsets} are known for OFFSET_OUT_OF_RANGE, else {@link LogOffsets#EMPTY}. */
    record Error(TopicPartition topicPartition, FetchError error, LogOffsets offsets, String message)
            implements PartitionResult {}
}
