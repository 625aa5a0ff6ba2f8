package io.floe.core.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.ByteRange;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class SegmentWriterTest {

    private static final UUID TOPIC = new UUID(0x0102030405060708L, 0x090a0b0c0d0e0f10L);

    @Test
    void emptySegmentHasHeaderCountAndTrailer() {
        SegmentWriter writer = new SegmentWriter();
        assertThat(writer.sizeBytes()).isEqualTo(21);

        ByteBuffer object = writer.finish();

        assertThat(object.position()).isZero();
        assertThat(object.remaining()).isEqualTo(21);
        assertThat(ascii(object, 0, 4)).isEqualTo("FLOE");
        assertThat(object.get(4)).isEqualTo((byte) 1);
        assertThat(object.getInt(5)).as("entry count").isZero();
        assertThat(object.getInt(9)).as("footer length").isEqualTo(4);
        assertThat(object.getInt(13)).as("footer crc").isEqualTo(crc32c(object, 5, 4));
        assertThat(ascii(object, 17, 4)).isEqualTo("FLOE");
    }

    @Test
    void writesTheExactLayout() {
        SegmentWriter writer = new SegmentWriter();
        ByteRange range = writer.append(TOPIC, 7, 3, 42L, (short) 2, 11, 1_700_000_000_000L, bytes("abc"));

        ByteBuffer object = writer.finish();

        assertThat(range).isEqualTo(new ByteRange(5, 3));
        assertThat(ascii(object, 5, 3)).isEqualTo("abc");
        int footer = 8;
        assertThat(object.getInt(footer)).isEqualTo(1);
        ByteBuffer entry = object.duplicate().position(footer + 4);
        assertThat(entry.getLong()).isEqualTo(TOPIC.getMostSignificantBits());
        assertThat(entry.getLong()).isEqualTo(TOPIC.getLeastSignificantBits());
        assertThat(entry.getInt()).as("partition").isEqualTo(7);
        assertThat(entry.getLong()).as("position").isEqualTo(5);
        assertThat(entry.getInt()).as("length").isEqualTo(3);
        assertThat(entry.getInt()).as("recordCount").isEqualTo(3);
        assertThat(entry.getLong()).as("producerId").isEqualTo(42L);
        assertThat(entry.getShort()).as("producerEpoch").isEqualTo((short) 2);
        assertThat(entry.getInt()).as("baseSequence").isEqualTo(11);
        assertThat(entry.getLong()).as("maxTimestamp").isEqualTo(1_700_000_000_000L);
        int footerLength = entry.position() - footer;
        assertThat(footerLength).isEqualTo(4 + 58);
        assertThat(entry.getInt()).as("footer length").isEqualTo(footerLength);
        assertThat(entry.getInt()).as("footer crc").isEqualTo(crc32c(object, footer, footerLength));
        assertThat(ascii(object, entry.position(), 4)).isEqualTo("FLOE");
        assertThat(object.remaining()).isEqualTo(entry.position() + 4);
    }

    @Test
    void keepsAppendOrderAndReportsSize() {
        SegmentWriter writer = new SegmentWriter();
        ByteRange first = writer.append(TOPIC, 1, 1, -1L, (short) -1, -1, 10L, bytes("first"));
        ByteRange second = writer.append(TOPIC, 0, 2, -1L, (short) -1, -1, 20L, bytes("second!"));

        assertThat(first).isEqualTo(new ByteRange(5, 5));
        assertThat(second).isEqualTo(new ByteRange(10, 7));
        assertThat(writer.batchCount()).isEqualTo(2);
        assertThat(writer.batches()).extracting(SegmentBatch::partition).containsExactly(1, 0);
        long expectedSize = writer.sizeBytes();

        ByteBuffer object = writer.finish();

        assertThat(object.remaining()).isEqualTo(expectedSize).isEqualTo(5 + 12 + 4 + 2 * 58 + 12);
        assertThat(ascii(object, 5, 12)).isEqualTo("firstsecond!");
    }

    @Test
    void doesNotMoveTheCallersBuffer() {
        ByteBuffer batch = ByteBuffer.wrap("xxpayloadyy".getBytes(StandardCharsets.US_ASCII))
                .position(2)
                .limit(9);
        SegmentWriter writer = new SegmentWriter();

        ByteRange range = writer.append(TOPIC, 0, 1, -1L, (short) -1, -1, 0L, batch);
        ByteBuffer object = writer.finish();

        assertThat(batch.position()).isEqualTo(2);
        assertThat(batch.limit()).isEqualTo(9);
        assertThat(ascii(object, (int) range.position(), range.length())).isEqualTo("payload");
    }

    @Test
    void rejectsAppendAfterFinish() {
        SegmentWriter writer = new SegmentWriter();
        writer.finish();

        assertThatThrownBy(() -> writer.append(TOPIC, 0, 1, -1L, (short) -1, -1, 0L, bytes("a")))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void rejectsEmptyBatchAndInvalidFields() {
        SegmentWriter writer = new SegmentWriter();

        assertThatThrownBy(() -> writer.append(TOPIC, 0, 1, -1L, (short) -1, -1, 0L, ByteBuffer.allocate(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty batch");
        assertThatThrownBy(() -> writer.append(TOPIC, -1, 1, -1L, (short) -1, -1, 0L, bytes("a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThat(writer.batchCount()).isZero();
    }

    static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static String ascii(ByteBuffer buffer, int at, int length) {
        byte[] out = new byte[length];
        buffer.get(at, out);
        return new String(out, StandardCharsets.US_ASCII);
    }

    private static int crc32c(ByteBuffer buffer, int at, int length) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().limit(at + length).position(at));
        return (int) crc.getValue();
    }
}
