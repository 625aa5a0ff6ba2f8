package io.floe.kafka.codec;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Record batches held as several buffers (slices of different objects) that go on the wire one after
 * the other, as one records field: the response encoder wraps each chunk instead of copying them
 * into one buffer first. Only {@link ResponseEncoder} writes them; they have no {@link #toSend()}.
 */
public final class ChunkedRecords implements BaseRecords {

    private final List<ByteBuffer> chunks;
    private final int sizeInBytes;

    public ChunkedRecords(List<ByteBuffer> chunks) {
        this.chunks = List.copyOf(chunks);
        int size = 0;
        for (ByteBuffer chunk : this.chunks) {
            size = Math.addExact(size, chunk.remaining());
        }
        this.sizeInBytes = size;
    }

    List<ByteBuffer> chunks() {
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
