package io.floe.agent.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.TopicPartition;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StorePageTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final ObjectKey OBJECT = new ObjectKey("segments/00/a.seg");

    /** Batches of 10 offsets and 100 bytes each, from {@code firstBase}. */
    private static List<LogEntry> batches(long firstBase, int count) {
        List<LogEntry> batches = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long base = firstBase + 10L * i;
            batches.add(new BatchCoordinate(TP, base, base + 9, OBJECT, new ByteRange(100L * i, 100), 0));
        }
        return batches;
    }

    @Test
    void answersFromTheBatchHoldingTheOffsetUpToTheByteLimit() {
        StorePage page = new StorePage(batches(0, 10), false);

        assertThat(page.answer(25, 300)).extracting(LogEntry::baseOffset).containsExactly(20L, 30L, 40L);
        assertThat(page.answer(0, 1)).extracting(LogEntry::baseOffset).containsExactly(0L);
    }

    @Test
    void cannotAnswerPastItsEndWhileTheStoreMayHoldMore() {
        StorePage page = new StorePage(batches(30, 5), false);

        assertThat(page.answer(80, 100)).as("past its last batch").isNull();
        assertThat(page.answer(60, 1000)).as("ends before the byte limit").isNull();
    }

    @Test
    void aPageThatReachedTheStoresEndAnswersShort() {
        StorePage page = new StorePage(batches(30, 5), true);

        assertThat(page.answer(60, 1000)).extracting(LogEntry::baseOffset).containsExactly(60L, 70L);
        assertThat(page.answer(80, 1000)).isEmpty();
    }

    @Test
    void aGapWhereItWasReadFromIsPartOfTheAnswer() {
        // Read from offset 5, the store's next batch starts at 40 (key compaction or retention left a gap):
        // the answer starts there and the fetch planner sees the gap.
        StorePage page = new StorePage(batches(40, 3), true);

        assertThat(page.answer(5, 1000)).extracting(LogEntry::baseOffset).containsExactly(40L, 50L, 60L);
    }

    @Test
    void anEmptyPageAnswersNothingOnlyWhenTheStoreHadNothingMore() {
        assertThat(new StorePage(List.of(), true).answer(0, 100)).isEmpty();
        assertThat(new StorePage(List.of(), false).answer(0, 100)).isNull();
        assertThat(new StorePage(List.of(), true).averageBatchBytes()).isEqualTo(1);
        assertThat(new StorePage(batches(0, 4), true).averageBatchBytes()).isEqualTo(100);
    }
}
