package io.floe.kafka.codec;

import io.floe.core.log.RecordChunk;
import java.util.List;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Record batches held as several chunks (slices of different objects in memory, ranges of object
 * files) that go on the wire one after the other, as one records field: the response encoder wraps
 * or sends each chunk instead of copying them into one buffer first. Only {@link ResponseEncoder}
 * writes them; they have no {@link #toSend()}.
 */
public final class ChunkedRecords implements BaseRecords {

    private final List<RecordChunk> chunks;
    private final int sizeInBytes;

    public ChunkedRecords(List<RecordChunk> chunks) {
        this.chunks = List.copyOf(chunks);
        int size = 0;
        for (RecordChunk chunk : this.chunks) {
            size = Math.addExact(size, chunk.length());
        }
        this.sizeInBytes = size;
    }

    List<RecordChunk> chunks() {
        return chunks;
    }

    @Override
    public int sizeInBytes() {
        return sizeInBytes;
    }

    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        throw new UnsupportedOperationException("chunked records are written by Floe's response encoder only");
    }
}
