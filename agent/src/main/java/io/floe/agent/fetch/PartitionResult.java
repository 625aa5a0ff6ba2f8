package io.floe.agent.fetch;

import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.RecordChunk;
import io.floe.core.log.TopicPartition;
import java.nio.ByteBuffer;
import java.util.List;

/** The answer for one partition of a fetch. */
public sealed interface PartitionResult {

    TopicPartition topicPartition();

    /** Releases the object files the answer's chunks hold (for an answer that is dropped, not sent). */
    default void release() {}

    /**
     * Record batches (possibly none) starting at or before the fetch offset, with their offsets patched
     * in: the concatenation of the {@code chunks}, which are slices of cached or read objects (handed
     * out without copying them into one buffer) or, for fetches that allow it, ranges of object files.
     * {@code offsets} carry the last stable offset; a read-committed answer holds entries below it
     * only, and {@code abortedTransactions} are those that meet its entries (empty otherwise).
     */
    record Data(
            TopicPartition topicPartition,
            LogOffsets offsets,
            List<RecordChunk> chunks,
            List<AbortedTransaction> abortedTransactions)
            implements PartitionResult {

        public Data {
            chunks = List.copyOf(chunks);
            abortedTransactions = List.copyOf(abortedTransactions);
        }

        /** An answer with no aborted transaction among its entries. */
        public Data(TopicPartition topicPartition, LogOffsets offsets, List<RecordChunk> chunks) {
            this(topicPartition, offsets, chunks, List.of());
        }

        /** Bytes of record batches in all chunks. */
        public int sizeInBytes() {
            int size = 0;
            for (RecordChunk chunk : chunks) {
                size += chunk.length();
            }
            return size;
        }

        /** The records in one buffer: a copy when they span several chunks (for tools and tests). */
        public ByteBuffer contiguous() {
            if (chunks.size() == 1 && chunks.get(0) instanceof RecordChunk.InMemory only) {
                return only.bytes().duplicate();
            }
            ByteBuffer all = ByteBuffer.allocate(sizeInBytes());
            for (RecordChunk chunk : chunks) {
                if (chunk instanceof RecordChunk.InMemory inMemory) {
                    all.put(inMemory.bytes().duplicate());
                } else {
                    RecordChunk.InFile inFile = (RecordChunk.InFile) chunk;
                    all.put(inFile.file().read(inFile.position(), inFile.length()));
                }
            }
            return all.flip();
        }

        @Override
        public void release() {
            for (RecordChunk chunk : chunks) {
                if (chunk instanceof RecordChunk.InFile inFile) {
                    inFile.file().release();
                }
            }
        }
    }

    /** No records, for {@code error}; {@code offsets} are known for OFFSET_OUT_OF_RANGE, else {@link LogOffsets#EMPTY}. */
    record Error(TopicPartition topicPartition, FetchError error, LogOffsets offsets, String message)
            implements PartitionResult {}
}
