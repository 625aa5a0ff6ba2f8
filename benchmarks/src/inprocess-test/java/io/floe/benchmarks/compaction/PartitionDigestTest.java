package io.floe.benchmarks.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PartitionDigestTest {

    @Test
    void sameRecordsGiveTheSameDigest() {
        PartitionDigest digest = digest(0, "a", 1, "b");
        assertThat(digest(0, "a", 1, "b")).isEqualTo(digest);
        assertThat(digest.records()).isEqualTo(2);
        assertThat(digest.firstOffset()).isZero();
        assertThat(digest.lastOffset()).isEqualTo(1);
    }

    @Test
    void anotherValueOffsetOrOrderChangesTheChecksum() {
        long crc = digest(0, "a", 1, "b").crc();
        assertThat(digest(0, "a", 1, "c").crc()).isNotEqualTo(crc);
        assertThat(digest(0, "a", 2, "b").crc()).isNotEqualTo(crc);
        assertThat(digest(1, "b", 0, "a").crc()).isNotEqualTo(crc);
        assertThat(digest(0, "ab", 1, "").crc()).as("value boundaries count").isNotEqualTo(crc);
    }

    @Test
    void aNullValueDiffersFromAnEmptyOne() {
        PartitionDigest.Builder nulls = new PartitionDigest.Builder();
        nulls.add(0, null);
        assertThat(nulls.build().crc()).isNotEqualTo(digest(0, "").crc());
    }

    @Test
    void anEmptyPartitionHasNoOffsets() {
        assertThat(new PartitionDigest.Builder().build()).isEqualTo(new PartitionDigest(0, -1, -1, 0));
    }

    @Test
    void valuesStartWithTheRecordNumber() {
        assertThat(ByteBuffer.wrap(Ingest.value(123_456_789L, 100)).getLong()).isEqualTo(123_456_789L);
        assertThat(Ingest.value(1, 100)).isNotEqualTo(Ingest.value(2, 100));
        assertThat(Ingest.value(258, 2)).as("the low bytes when the value is short").containsExactly(1, 2);
    }

    private static PartitionDigest digest(Object... offsetsAndValues) {
        PartitionDigest.Builder builder = new PartitionDigest.Builder();
        for (int i = 0; i < offsetsAndValues.length; i += 2) {
            builder.add(((Number) offsetsAndValues[i]).longValue(),
                    ByteBuffer.wrap(((String) offsetsAndValues[i + 1]).getBytes(StandardCharsets.UTF_8)));
        }
        return builder.build();
    }
}
