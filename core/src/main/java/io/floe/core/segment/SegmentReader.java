package io.floe.core.segment;

import static io.floe.core.segment.SegmentLayout.COUNT_BYTES;
import static io.floe.core.segment.SegmentLayout.ENTRY_BYTES;
import static io.floe.core.segment.SegmentLayout.HEADER_BYTES;
import static io.floe.core.segment.SegmentLayout.MAGIC;
import static io.floe.core.segment.SegmentLayout.MIN_SEGMENT_BYTES;
import static io.floe.core.segment.SegmentLayout.TRAILER_BYTES;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Verifies and decodes segment footers: magic at both ends, the version, the footer's length and
 * CRC32C, and that every entry lies inside the batch area. Any violation is a
 * {@link SegmentFormatException} naming the object and the values found.
 */
public final class SegmentReader {

    private SegmentReader() {}

    /** Reads the footer of a whole segment held in {@code wholeObject} (position to limit, not consumed). */
    public static SegmentFooter readFooter(ByteBuffer wholeObject) {
        return readFooter(wholeObject, "segment buffer");
    }

    /**
     * Reads the footer of the segment stored under {@code key}. It reads the whole object; store
     * errors propagate as they are.
     */
    public static SegmentFooter readFooter(ObjectStore store, ObjectKey key) {
        return readFooter(store.get(key), "segment " + key + " in " + store.describe());
    }

    private static SegmentFooter readFooter(ByteBuffer wholeObject, String name) {
        ByteBuffer object = wholeObject.slice().order(ByteOrder.BIG_ENDIAN);
        int size = object.remaining();
        if (size < MIN_SEGMENT_BYTES) {
            throw invalid(name, "has " + size + " bytes, fewer than the " + MIN_SEGMENT_BYTES + " of an empty segment");
        }
        checkMagic(object, 0, name, "header");
        checkMagic(object, size - MAGIC.length, name, "trailer");
        int version = Byte.toUnsignedInt(object.get(MAGIC.length));
        if (version != SegmentLayout.VERSION) {
            throw invalid(name, "has version " + version + ", this reader knows only " + SegmentLayout.VERSION);
        }
        int footerStart = footerStart(object, name);
        int footerLength = size - TRAILER_BYTES - footerStart;
        int storedCrc = object.getInt(size - TRAILER_BYTES + Integer.BYTES);
        int computedCrc = SegmentLayout.crc32c(object, footerStart, footerLength);
        if (storedCrc != computedCrc) {
            throw invalid(
                    name,
                    "footer CRC32C mismatch: stored " + hex(storedCrc) + ", computed " + hex(computedCrc) + " over "
                            + footerLength + " bytes");
        }
        int count = object.getInt(footerStart);
        if (count < 0 || SegmentLayout.footerBytes(count) != footerLength) {
            throw invalid(
                    name,
                    "footer of " + footerLength + " bytes cannot hold " + count + " entries of " + ENTRY_BYTES
                            + " bytes after a " + COUNT_BYTES + " byte count");
        }
        ByteBuffer entries = object.duplicate().position(footerStart + COUNT_BYTES);
        List<SegmentBatch> batches = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            batches.add(readEntry(entries, footerStart, name, i));
        }
        return new SegmentFooter(version, batches);
    }

    /** Where the footer starts, from the length in the trailer, checked against the object's size. */
    private static int footerStart(ByteBuffer object, String name) {
        int size = object.remaining();
        int footerLength = object.getInt(size - TRAILER_BYTES);
        int maxFooterLength = size - HEADER_BYTES - TRAILER_BYTES;
        if (footerLength < COUNT_BYTES || footerLength > maxFooterLength) {
            throw invalid(
                    name,
                    "has footer length " + footerLength + ", outside [" + COUNT_BYTES + ", " + maxFooterLength
                            + "] for an object of " + size + " bytes");
        }
        return size - TRAILER_BYTES - footerLength;
    }

    private static SegmentBatch readEntry(ByteBuffer in, int batchAreaEnd, String name, int index) {
        UUID topicId = new UUID(in.getLong(), in.getLong());
        int partition = in.getInt();
        long position = in.getLong();
        int length = in.getInt();
        int recordCount = in.getInt();
        long producerId = in.getLong();
        short producerEpoch = in.getShort();
        int baseSequence = in.getInt();
        long maxTimestamp = in.getLong();
        if (position < HEADER_BYTES || position > batchAreaEnd || length < 0 || length > batchAreaEnd - position) {
            throw invalid(
                    name,
                    "entry " + index + " has position " + position + " length " + length + ", outside the batch area ["
                            + HEADER_BYTES + ", " + batchAreaEnd + ")");
        }
        try {
            return new SegmentBatch(
                    topicId,
                    partition,
                    new ByteRange(position, length),
                    recordCount,
                    producerId,
                    producerEpoch,
                    baseSequence,
                    maxTimestamp);
        } catch (IllegalArgumentException e) {
            throw new SegmentFormatException(name + " entry " + index + " is invalid: " + e.getMessage(), e);
        }
    }

    private static void checkMagic(ByteBuffer object, int at, String name, String where) {
        for (int i = 0; i < MAGIC.length; i++) {
            if (object.get(at + i) != MAGIC[i]) {
                byte[] found = new byte[MAGIC.length];
                object.get(at, found);
                throw invalid(name, "has no FLOE magic in its " + where + " at " + at + ": found bytes " + hex(found));
            }
        }
    }

    private static SegmentFormatException invalid(String name, String problem) {
        return new SegmentFormatException(name + " " + problem);
    }

    private static String hex(int value) {
        return String.format("0x%08x", value);
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder("0x");
        for (byte b : bytes) {
            out.append(String.format("%02x", b));
        }
        return out.toString();
    }
}
