package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.objectstore.s3.WriteStamp.Match;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class WriteStampTest {

    private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-000000000001");
    /** CRC32C("123456789"), the catalogue check value. */
    private static final long CHECK_VALUE = 0xE3069283L;

    @Test
    void stampsFromPositionToLimitWithoutMovingTheBuffer() {
        ByteBuffer heap =
                ByteBuffer.wrap("xx123456789yy".getBytes()).position(2).limit(11);
        ByteBuffer direct =
                ByteBuffer.allocateDirect(9).put("123456789".getBytes()).flip();

        WriteStamp fromHeap = WriteStamp.of(ID, heap);
        WriteStamp fromDirect = WriteStamp.of(ID, direct);

        assertThat(fromHeap).isEqualTo(new WriteStamp(ID, 9, CHECK_VALUE)).isEqualTo(fromDirect);
        assertThat(heap.position()).isEqualTo(2);
        assertThat(direct.position()).isZero();
        assertThat(fromHeap.toMetadata())
                .containsOnly(Map.entry("floe-write-id", ID.toString()), Map.entry("floe-crc32c", "e3069283"));
    }

    @Test
    void recognisesItsOwnObject() {
        WriteStamp stamp = new WriteStamp(ID, 9, CHECK_VALUE);

        assertThat(stamp.match(9, stamp.toMetadata())).isEqualTo(Match.THIS_WRITE);
        Map<String, String> upperCase = new HashMap<>(stamp.toMetadata());
        upperCase.put("floe-crc32c", "E3069283");
        assertThat(stamp.match(9, upperCase)).isEqualTo(Match.THIS_WRITE);
    }

    @Test
    void tellsOtherWritesEvenWithTheSameContent() {
        WriteStamp stamp = new WriteStamp(ID, 9, CHECK_VALUE);
        WriteStamp other = new WriteStamp(UUID.fromString("00000000-0000-0000-0000-000000000002"), 9, CHECK_VALUE);

        assertThat(stamp.match(9, other.toMetadata())).isEqualTo(Match.OTHER_WRITE);
        assertThat(stamp.match(9, Map.of())).isEqualTo(Match.OTHER_WRITE);
    }

    @Test
    void noticesItsOwnIdOnChangedContent() {
        WriteStamp stamp = new WriteStamp(ID, 9, CHECK_VALUE);

        assertThat(stamp.match(10, stamp.toMetadata())).isEqualTo(Match.THIS_WRITE_CHANGED);
        assertThat(stamp.match(9, Map.of("floe-write-id", ID.toString(), "floe-crc32c", "00000000")))
                .isEqualTo(Match.THIS_WRITE_CHANGED);
        assertThat(stamp.match(9, Map.of("floe-write-id", ID.toString()))).isEqualTo(Match.THIS_WRITE_CHANGED);
    }
}
