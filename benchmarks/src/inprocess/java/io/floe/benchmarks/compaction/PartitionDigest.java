package io.floe.benchmarks.compaction;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * What one read of a partition returned, in a form two reads can be compared by: how many records, the first
 * and last offset, and a CRC32C over every record's offset, value length and value, in the order read.
 */
record PartitionDigest(long records, long firstOffset, long lastOffset, long crc) {

    String crcHex() {
        return String.format("%08x", crc);
    }

    /** Accumulates one partition's records, in offset order. Not thread-safe. */
    static final class Builder {
        private final CRC32C crc = new CRC32C();
        private final ByteBuffer header = ByteBuffer.allocate(Long.BYTES + Integer.BYTES);
        private long records;
        private long firstOffset = -1;
        private long lastOffset = -1;

        /** Adds a record; {@code value} is consumed (its position moves to its limit), null for a null value. */
        void add(long offset, ByteBuffer value) {
            header.clear();
            header.putLong(offset).putInt(value == null ? -1 : value.remaining()).flip();
            crc.update(header);
            if (value != null) {
                crc.update(value);
            }
            if (records == 0) {
                firstOffset = offset;
            }
            lastOffset = offset;
            records++;
        }

        PartitionDigest build() {
            return new PartitionDigest(records, firstOffset, lastOffset, crc.getValue());
        }
    }
}
