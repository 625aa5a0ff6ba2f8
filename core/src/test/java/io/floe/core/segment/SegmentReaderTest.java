package io.floe.core.segment;

import static io.floe.core.segment.SegmentWriterTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentReaderTest {

    private static final UUID ORDERS = new UUID(1L, 2L);
    private static final UUID CLICKS = new UUID(-1L, Long.MIN_VALUE);

    @Test
    void roundTripsEveryField() {
        SegmentWriter writer = sampleWriter();
        List<SegmentBatch> written = writer.batches();
        ByteBuffer object = writer.finish();

        SegmentFooter footer = SegmentReader.readFooter(object);

        assertThat(footer.version()).isEqualTo(1);
        assertThat(footer.batches()).isEqualTo(written);
        assertThat(content(object, footer.batches().get(0).range())).isEqualTo("orders-0-batch");
        assertThat(content(object, footer.batches().get(2).range())).isEqualTo("clicks-9");
        assertThat(object.position()).as("the caller's buffer is not consumed").isZero();
    }

    @Test
    void roundTripsAnEmptySegment() {
        SegmentFooter footer = SegmentReader.readFooter(new SegmentWriter().finish());

        assertThat(footer).isEqualTo(new SegmentFooter(1, List.of()));
    }

    @Test
    void readsFromTheBuffersPosition() {
        ByteBuffer object = sampleWriter().finish();
        ByteBuffer larger = ByteBuffer.allocate(object.remaining() + 7);
        larger.position(3).put(object.duplicate()).position(3).limit(3 + object.remaining());

        assertThat(SegmentReader.readFooter(larger)).isEqualTo(SegmentReader.readFooter(object));
    }

    @Test
    void readsFromAStore(@TempDir Path root) {
        LocalObjectStore store = new LocalObjectStore(root);
        SegmentWriter writer = sampleWriter();
        List<SegmentBatch> written = writer.batches();
        ObjectKey key = new ObjectKey("segments/ab/0001.seg");
        store.put(key, writer.finish());

        assertThat(SegmentReader.readFooter(store, key).batches()).isEqualTo(written);
        assertThatThrownBy(() -> SegmentReader.readFooter(store, new ObjectKey("segments/ab/missing.seg")))
                .isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void namesTheKeyOfACorruptStoredSegment(@TempDir Path root) {
        LocalObjectStore store = new LocalObjectStore(root);
        ObjectKey key = new ObjectKey("segments/cd/0002.seg");
        store.put(key, bytes("not a segment, just some bytes"));

        assertThatThrownBy(() -> SegmentReader.readFooter(store, key))
                .isInstanceOf(SegmentFormatException.class)
                .hasMessageContaining(key.value())
                .hasMessageContaining("magic");
    }

    @Test
    void rejectsEveryFlippedByteOutsideTheBatches() {
        ByteBuffer valid = sampleWriter().finish();
        int batchAreaEnd = 5 + "orders-0-batch".length() + "orders-1".length() + "clicks-9".length();
        for (int at = 0; at < valid.remaining(); at++) {
            if (at >= 5 && at < batchAreaEnd) {
                continue;
            }
            ByteBuffer corrupt = copy(valid);
            corrupt.put(at, (byte) (corrupt.get(at) ^ 0x10));
            assertThatThrownBy(() -> SegmentReader.readFooter(corrupt))
                    .as("byte %d flipped", at)
                    .isInstanceOf(SegmentFormatException.class);
        }
    }

    @Test
    void leavesBatchBytesToTheirOwnChecksum() {
        ByteBuffer corrupt = sampleWriter().finish();
        corrupt.put(5, (byte) (corrupt.get(5) ^ 0x10));

        assertThat(SegmentReader.readFooter(corrupt).batches()).hasSize(3);
    }

    @Test
    void reportsTheCrcMismatch() {
        ByteBuffer corrupt = sampleWriter().finish();
        int footerStart = footerStart(corrupt);
        corrupt.put(footerStart + 20, (byte) (corrupt.get(footerStart + 20) ^ 0x01));

        assertThatThrownBy(() -> SegmentReader.readFooter(corrupt))
                .isInstanceOf(SegmentFormatException.class)
                .hasMessageContaining("CRC32C mismatch");
    }

    @Test
    void rejectsEveryTruncation() {
        ByteBuffer valid = sampleWriter().finish();
        for (int length = 0; length < valid.remaining(); length++) {
            ByteBuffer truncated = copy(valid).limit(length);
            assertThatThrownBy(() -> SegmentReader.readFooter(truncated))
                    .as("truncated to %d bytes", length)
                    .isInstanceOf(SegmentFormatException.class);
        }
    }

    @Test
    void rejectsAnUnknownVersion() {
        ByteBuffer object = new SegmentWriter().finish();
        object.put(4, (byte) 2);

        assertThatThrownBy(() -> SegmentReader.readFooter(object))
                .isInstanceOf(SegmentFormatException.class)
                .hasMessageContaining("version 2");
    }

    @Test
    void rejectsAFooterLengthOutOfBounds() {
        ByteBuffer object = sampleWriter().finish();
        object.putInt(object.remaining() - 12, Integer.MAX_VALUE);

        assertThatThrownBy(() -> SegmentReader.readFooter(object))
                .isInstanceOf(SegmentFormatException.class)
                .hasMessageContaining("footer length " + Integer.MAX_VALUE);
    }

    @Test
    void rejectsAnEntryCountThatDoesNotFitTheFooter() {
        ByteBuffer object = sampleWriter().finish();
        object.putInt(footerStart(object), 4);
        rewriteCrc(object);

        assertThatThrownBy(() -> SegmentReader.readFooter(object))
                .isInstanceOf(SegmentFormatException.class)
                .hasMessageContaining("cannot hold 4 entries");
    }

    @Test
    void rejectsAnEntryOutsideTheBatchArea() {
        ByteBuffer object = sampleWriter().finish();
        int footerStart = footerStart(object);
        int secondEntryPosition = footerStart + 4 + 58 + 20;
        object.putLong(secondEntryPosition, footerStart - 2);
        rewriteCrc(object);

        assertThatThrownBy(() -> SegmentReader.readFooter(object))
                .isInstanceOf(SegmentFormatException.class)
                .hasMessageContaining("entry 1")
                .hasMessageContaining("outside the batch area");
    }

    @Test
    void rejectsAnInvalidEntryField() {
        ByteBuffer object = sampleWriter().finish();
        int firstEntryPartition = footerStart(object) + 4 + 16;
        object.putInt(firstEntryPartition, -5);
        rewriteCrc(object);

        assertThatThrownBy(() -> SegmentReader.readFooter(object))
                .isInstanceOf(SegmentFormatException.class)
                .hasMessageContaining("entry 0")
                .hasMessageContaining("-5");
    }

    private static SegmentWriter sampleWriter() {
        SegmentWriter writer = new SegmentWriter();
        writer.append(ORDERS, 0, 5, 1000L, (short) 3, 17, 1_700_000_000_123L, bytes("orders-0-batch"));
        writer.append(ORDERS, 1, 1, -1L, (short) -1, -1, -1L, bytes("orders-1"));
        writer.append(
                CLICKS,
                9,
                Integer.MAX_VALUE,
                Long.MAX_VALUE,
                Short.MAX_VALUE,
                Integer.MAX_VALUE,
                Long.MIN_VALUE,
                bytes("clicks-9"));
        return writer;
    }

    private static int footerStart(ByteBuffer object) {
        return object.remaining() - 12 - object.getInt(object.remaining() - 12);
    }

    /** Makes a deliberately edited footer pass the CRC check, to reach the checks behind it. */
    private static void rewriteCrc(ByteBuffer object) {
        int footerStart = footerStart(object);
        int footerLength = object.remaining() - 12 - footerStart;
        CRC32C crc = new CRC32C();
        crc.update(object.duplicate().limit(footerStart + footerLength).position(footerStart));
        object.putInt(object.remaining() - 8, (int) crc.getValue());
    }

    private static ByteBuffer copy(ByteBuffer buffer) {
        ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
        copy.put(buffer.duplicate()).flip();
        return copy;
    }

    private static String content(ByteBuffer object, ByteRange range) {
        byte[] out = new byte[range.length()];
        object.get((int) range.position(), out);
        return new String(out, StandardCharsets.US_ASCII);
    }
}
