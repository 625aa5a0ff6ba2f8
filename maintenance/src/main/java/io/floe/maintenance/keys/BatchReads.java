package io.floe.maintenance.keys;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectStore;
import io.floe.core.record.StoredBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Reads batches of one object: back-to-back batches in one range read of at most
 * {@link #READ_BYTES_MAX} bytes (a bigger batch alone). Each batch is CRC-checked and copied into a
 * buffer of its own with its assigned base offset patched in (outside the CRC, as fetch does), so its
 * records carry the log's offsets.
 */
final class BatchReads {

    static final int READ_BYTES_MAX = 8 << 20;

    private BatchReads() {}

    /** The bytes of {@code batches}, all in one object, in their order. */
    static List<ByteBuffer> read(ObjectStore objects, List<BatchCoordinate> batches, LongConsumer bytesRead) {
        List<ByteBuffer> read = new ArrayList<>(batches.size());
        int first = 0;
        while (first < batches.size()) {
            long start = batches.get(first).range().position();
            long end = batches.get(first).range().end();
            int last = first;
            while (last + 1 < batches.size()) {
                ByteRange next = batches.get(last + 1).range();
                if (next.position() != end || next.end() - start > READ_BYTES_MAX) {
                    break;
                }
                end = next.end();
                last++;
            }
            ByteBuffer span =
                    objects.get(batches.get(first).object(), new ByteRange(start, Math.toIntExact(end - start)));
            bytesRead.accept(end - start);
            for (int i = first; i <= last; i++) {
                read.add(copy(batches.get(i), span, start));
            }
            first = last + 1;
        }
        return read;
    }

    private static ByteBuffer copy(BatchCoordinate batch, ByteBuffer span, long spanStart) {
        int at = span.position() + (int) (batch.range().position() - spanStart);
        ByteBuffer copy = ByteBuffer.allocate(batch.range().length())
                .put(span.duplicate().position(at).limit(at + batch.range().length()))
                .flip();
        if (!StoredBatch.isIntact(copy)) {
            throw new IllegalStateException("batch at offset " + batch.baseOffset() + " of " + batch.topicPartition()
                    + " in " + batch.object() + " " + batch.range() + " failed its CRC check; key compaction"
                    + " leaves the partition alone");
        }
        copy.putLong(0, batch.baseOffset());
        return copy;
    }
}
