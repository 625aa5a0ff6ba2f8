package io.floe.maintenance.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Where Kafka would roll segments, from entries alone (LogSegment.shouldRoll). */
class ActiveSegmentTest {

    private static final TopicPartition TP = new TopicPartition("changelog", 0);
    private static final long T0 = 1_700_000_000_000L;
    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final ObjectKey OBJECT = new ObjectKey("segments/0a/" + T0 + "-agent-1-00000001.seg");
    private static final ActiveSegment.Limits HOURLY = new ActiveSegment.Limits(1 << 20, HOUR);

    @Test
    void anEntryMoreThanSegmentMsAfterTheSegmentsFirstRollsIt() {
        ActiveSegment segment = ActiveSegment.at(0);

        assertThat(segment.append(batch(0, 9, 100, T0), HOURLY)).isFalse();
        assertThat(segment.append(batch(10, 19, 100, T0 + HOUR), HOURLY))
                .as("exactly segment.ms later: not yet")
                .isFalse();
        assertThat(segment.append(batch(20, 29, 100, T0 + HOUR + 1), HOURLY)).isTrue();

        assertThat(segment.baseOffset()).isEqualTo(20);
        assertThat(segment.batchBytes()).isEqualTo(100);
        assertThat(segment.nextOffset()).isEqualTo(30);
        assertThat(segment.append(batch(30, 39, 100, T0 + 2 * HOUR), HOURLY))
                .as("measured from the new segment's first entry")
                .isFalse();
    }

    @Test
    void anEntryThatWouldTakeTheSegmentPastSegmentBytesRollsIt() {
        ActiveSegment.Limits small = new ActiveSegment.Limits(250, HOUR);
        ActiveSegment segment = ActiveSegment.at(0);

        segment.append(batch(0, 9, 100, T0), small);
        assertThat(segment.append(batch(10, 19, 150, T0), small))
                .as("250 bytes fit")
                .isFalse();
        assertThat(segment.append(batch(20, 20, 1, T0), small)).isTrue();

        assertThat(segment.baseOffset()).isEqualTo(20);
    }

    @Test
    void markersTakeTheirPlaceInTheSegmentAndCanRollIt() {
        ActiveSegment segment = ActiveSegment.at(0);

        segment.append(batch(0, 9, 100, T0), HOURLY);
        assertThat(segment.append(marker(10, T0 + 2 * HOUR), HOURLY)).isTrue();

        assertThat(segment.baseOffset()).isEqualTo(10);
        assertThat(segment.batchBytes()).as("markers are in no object").isZero();
        assertThat(segment.nextOffset()).isEqualTo(11);
    }

    @Test
    void maxCompactionLagShortensTheSegmentsOfACompactedTopic() {
        assertThat(ActiveSegment.Limits.of(1 << 20, 7 * 24 * HOUR, HOUR).segmentMs())
                .isEqualTo(HOUR);
        assertThat(ActiveSegment.Limits.of(1 << 20, HOUR, Long.MAX_VALUE).segmentMs())
                .isEqualTo(HOUR);
    }

    @Test
    void aSegmentFollowedFromARecordedStartFindsTheSameRolls() {
        ActiveSegment whole = ActiveSegment.at(0);
        ActiveSegment resumed = ActiveSegment.at(20);
        for (int i = 0; i < 10; i++) {
            BatchCoordinate batch = batch(i * 10L, i * 10L + 9, 100, T0 + i * 40 * 60_000L);
            whole.append(batch, HOURLY);
            if (i >= 2) {
                resumed.append(batch, HOURLY);
            }
        }

        assertThat(whole.baseOffset()).isEqualTo(80);
        assertThat(resumed.baseOffset()).isEqualTo(whole.baseOffset());
    }

    @Test
    void entriesAlreadyTakenAreIgnored() {
        ActiveSegment segment = ActiveSegment.at(0);
        segment.append(batch(0, 9, 100, T0), HOURLY);

        assertThat(segment.append(batch(0, 9, 100, T0 + 2 * HOUR), HOURLY)).isFalse();
        assertThat(segment.nextOffset()).isEqualTo(10);
    }

    private static BatchCoordinate batch(long base, long last, int bytes, long maxTimestamp) {
        return new BatchCoordinate(TP, base, last, OBJECT, new ByteRange(0, bytes), maxTimestamp);
    }

    private static TransactionMarker marker(long offset, long timestamp) {
        return new TransactionMarker(TP, offset, 1000, (short) 0, true, 0, 0, timestamp);
    }
}
