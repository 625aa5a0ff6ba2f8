package io.floe.maintenance.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.maintenance.keys.DirtyScan.DirtySection;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DirtyScanTest {

    private static final TopicPartition TP = new TopicPartition("changelog", 0);
    private static final Instant NOW = Instant.ofEpochMilli(1_700_000_000_000L);
    private static final ObjectKey OLD = new ObjectKey("segments/0a/1600000000000-agent-1-00000001.seg");
    private static final ObjectKey YOUNG = new ObjectKey("segments/0b/" + NOW.toEpochMilli() + "-agent-1-00000002.seg");

    @Test
    void theActiveSegmentIsNeverCleanable() {
        DirtyScan scan = scan(20, 30, Long.MAX_VALUE);

        assertThat(scan.offer(batch(0, 9, OLD))).isTrue();
        assertThat(scan.offer(batch(10, 19, OLD))).isTrue();
        assertThat(scan.offer(batch(20, 29, OLD))).isFalse();

        DirtySection section = scan.result(0);
        assertThat(section.cleanable()).extracting(BatchCoordinate::baseOffset).containsExactly(0L, 10L);
        assertThat(section.end()).isEqualTo(20);
        assertThat(section.bytes()).isEqualTo(200);
        assertThat(section.oldestTimestamp()).hasValue(NOW.toEpochMilli() - 1000);
    }

    @Test
    void aBatchReachingPastTheLastStableOffsetWaits() {
        DirtyScan scan = scan(100, 15, Long.MAX_VALUE);

        assertThat(scan.offer(batch(0, 9, OLD))).isTrue();
        assertThat(scan.offer(batch(10, 19, OLD))).isFalse();

        assertThat(scan.result(0).end()).isEqualTo(10);
    }

    @Test
    void aBatchNewerThanTheMinimumLagWaitsWithEverythingAfterIt() {
        DirtyScan scan = new DirtyScan(100, 100, NOW.toEpochMilli() - 500, NOW, Long.MAX_VALUE, 1000);

        assertThat(scan.offer(batch(0, 9, OLD))).isTrue();
        assertThat(scan.offer(new BatchCoordinate(TP, 10, 19, OLD, new ByteRange(0, 100), NOW.toEpochMilli())))
                .isFalse();

        assertThat(scan.result(0).end()).isEqualTo(10);
    }

    @Test
    void aBatchInAYoungObjectWaits() {
        DirtyScan scan = new DirtyScan(100, 100, Long.MAX_VALUE, NOW.minusSeconds(30), Long.MAX_VALUE, 1000);

        assertThat(scan.offer(batch(0, 9, OLD))).isTrue();
        assertThat(scan.offer(batch(10, 19, YOUNG))).isFalse();

        assertThat(scan.result(0).end()).isEqualTo(10);
    }

    @Test
    void theKeyMapsCapacityBoundsThePass() {
        DirtyScan scan = scan(100, 100, 25);

        assertThat(scan.offer(batch(0, 9, OLD))).isTrue();
        assertThat(scan.offer(batch(10, 19, OLD))).isTrue();
        assertThat(scan.offer(batch(20, 29, OLD))).isFalse();

        assertThat(scan.result(0).end()).isEqualTo(20);
    }

    @Test
    void nothingDirtyEndsWhereTheScanBegan() {
        DirtySection section = scan(40, 40, Long.MAX_VALUE).result(40);

        assertThat(section.cleanable()).isEmpty();
        assertThat(section.end()).isEqualTo(40);
        assertThat(section.oldestTimestamp()).isEmpty();
    }

    @Test
    void aFirstBatchThatMustWaitEndsThePassBelowIt() {
        DirtyScan scan = scan(100, 29, Long.MAX_VALUE);

        assertThat(scan.offer(batch(20, 29, OLD))).isFalse();

        DirtySection section = scan.result(25);
        assertThat(section.cleanable()).isEmpty();
        assertThat(section.end())
                .as("the batch reaching across the scan's start must not be cleaned")
                .isEqualTo(20);
        assertThat(section.oldestTimestamp()).hasValue(NOW.toEpochMilli() - 1000);
    }

    private static DirtyScan scan(long activeSegment, long lastStableOffset, long recordsMax) {
        return new DirtyScan(activeSegment, lastStableOffset, Long.MAX_VALUE, NOW.minusSeconds(30), recordsMax, 1000);
    }

    private static BatchCoordinate batch(long base, long last, ObjectKey object) {
        return new BatchCoordinate(TP, base, last, object, new ByteRange(base * 10, 100), NOW.toEpochMilli() - 1000);
    }
}
