package io.floe.core.segment;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/** Sizes and encodings of the segment format, shared by the writer and the reader. */
final class SegmentLayout {

    static final byte[] MAGIC = "FLOE".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int HEADER_BYTES = MAGIC.length + 1;
    static final int COUNT_BYTES = Integer.BYTES;
    /** topicId (2 longs), partition, position, length, recordCount, producer id/epoch/sequence, maxTimestamp. */
    static final int ENTRY_BYTES = 8 + 8 + 4 + 8 + 4 + 4 + 8 + 2 + 4 + 8;
    /** Footer length, footer CRC32C, magic. */
    static final int TRAILER_BYTES = Integer.BYTES + Integer.BYTES + MAGIC.length;
    /** An empty segment: header, a zero entry count, trailer. */
    static final int MIN_SEGMENT_BYTES = HEADER_BYTES + COUNT_BYTES + TRAILER_BYTES;
    /** A finished segment is one heap buffer; stay below the largest array every JVM allocates. */
    static final int MAX_SEGMENT_BYTES = Integer.MAX_VALUE - 8;

    private SegmentLayout() {}

    static long footerBytes(long entryCount) {
        return COUNT_BYTES + ENTRY_BYTES * entryCount;
    }

    static void writeEntry(ByteBuffer out, SegmentBatch batch) {
        out.putLong(batch.topicId().getMostSignificantBits())
                .putLong(batch.topicId().getLeastSignificantBits())
                .putInt(batch.partition())
                .putLong(batch.range().position())
                .putInt(batch.range().length())
                .putInt(batch.recordCount())
                .putLong(batch.producerId())
                .putShort(batch.producerEpoch())
                .putInt(batch.baseSequence())
                .putLong(batch.maxTimestamp());
    }

    /** CRC32C of {@code length} bytes of {@code buffer} from absolute index {@code start}. */
    static int crc32c(ByteBuffer buffer, int start, int length) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().limit(start + length).position(start));
        return (int) crc.getValue();
    }
}
