package io.floe.agent.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One view's last stable offset, from its commits, markers and store reads. */
class PartitionLogTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final ObjectKey OBJECT = new ObjectKey("segments/00/a.seg");
    private static final long NONE = -1;
    private static final int INDEX = 100;

    private static BatchCoordinate batch(long base) {
        return new BatchCoordinate(TP, base, base + 9, OBJECT, new ByteRange(base * 10, 100), 0);
    }

    private static TransactionMarker marker(long offset, long producerId, boolean commit, long first) {
        return new TransactionMarker(TP, offset, producerId, (short) 0, commit, first, 0, 0);
    }

    @Test
    void aTransactionalBatchHoldsTheStableOffsetAtItsStartUntilItsMarker() {
        PartitionLog log = new PartitionLog(TP, new LogOffsets(0, 10));
        assertThat(log.knowsOpenTransactions()).isTrue();

        log.append(batch(10), 0, INDEX, 7);
        log.append(batch(20), 0, INDEX, NONE);
        log.append(batch(30), 0, INDEX, 7);
        assertThat(log.offsets()).isEqualTo(new LogOffsets(0, 10, 40));

        log.append(marker(40, 7, true, 10), INDEX);
        assertThat(log.offsets()).isEqualTo(new LogOffsets(0, 41, 41));
        assertThat(log.bytesAvailable(0, 41)).as("below the index").isEqualTo(Long.MAX_VALUE);
        assertThat(log.bytesAvailable(10, 41)).isEqualTo(300 + TransactionMarker.SIZE_IN_BYTES);
        assertThat(log.bytesAvailable(10, 20)).isEqualTo(100);
        assertThat(log.bytesAvailable(41, 41)).isZero();
    }

    @Test
    void theOldestOpenTransactionDecides() {
        PartitionLog log = new PartitionLog(TP, new LogOffsets(0, 10));
        log.append(batch(10), 0, INDEX, 7);
        log.append(batch(20), 0, INDEX, 8);
        log.append(marker(30, 7, false, 10), INDEX);

        assertThat(log.offsets()).isEqualTo(new LogOffsets(0, 20, 31));
        assertThat(log.mayHaveAbortsFrom(30)).as("the abort ends at 30").isTrue();
        assertThat(log.mayHaveAbortsFrom(31)).isFalse();
    }

    @Test
    void aViewLoadedUnstableKnowsOnlyAFloorUntilItLearnsTheOpenTransactions() {
        PartitionLog log = new PartitionLog(TP, new LogOffsets(0, 5, 20));
        assertThat(log.knowsOpenTransactions()).isFalse();
        log.append(marker(20, 7, true, 5), INDEX);
        assertThat(log.offsets().lastStableOffset())
                .as("whose transaction began at 5 is not known")
                .isEqualTo(5);

        log.learn(new LogOffsets(0, 12, 21), Map.of(9L, 12L));
        assertThat(log.knowsOpenTransactions()).isTrue();
        assertThat(log.offsets()).isEqualTo(new LogOffsets(0, 12, 21));
        log.append(marker(21, 9, true, 12), INDEX);
        assertThat(log.offsets()).isEqualTo(new LogOffsets(0, 22, 22));
    }

    @Test
    void aGapKeepsTheStableOffsetAtItsStartUntilTheStoreSaysMore() {
        PartitionLog log = new PartitionLog(TP, new LogOffsets(0, 10));
        log.append(batch(30), 0, INDEX, NONE); // another agent wrote 10..29
        assertThat(log.offsets()).isEqualTo(new LogOffsets(0, 10, 40));
        assertThat(log.mayHaveAbortsFrom(10)).isTrue();

        log.learn(new LogOffsets(0, 25, 30), null);
        assertThat(log.offsets().lastStableOffset())
                .as("an older read raises the floor")
                .isEqualTo(25);
        log.learn(new LogOffsets(0, 40, 40), null);
        assertThat(log.knowsOpenTransactions()).isTrue();
        assertThat(log.offsets()).isEqualTo(new LogOffsets(0, 40, 40));
    }

    @Test
    void aViewBegunByACommitVouchesForNothingBelowIt() {
        PartitionLog log = PartitionLog.begunAt(TP, 3, 50);
        log.append(batch(50), 3, INDEX, NONE);

        assertThat(log.offsets()).isEqualTo(new LogOffsets(3, 3, 60));
        assertThat(log.knowsOpenTransactions()).isFalse();
        assertThat(log.mayHaveAbortsFrom(50)).isFalse();
        assertThat(log.mayHaveAbortsFrom(49)).isTrue();
    }
}
