package io.floe.tableflow.changes.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.changes.Offsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TopicTailTest {

    private static final UUID TOPIC_ID = UUID.fromString("6f1c1c8e-0c1b-4d4e-9a3e-2f0d3b1c2a10");

    private static StreamLink.PartitionEnd end(int partition, long endOffset, Progress last) {
        return new StreamLink.PartitionEnd(
                partition, endOffset, Optional.ofNullable(last).map(progress -> progress.header(TOPIC_ID, "changes")));
    }

    @Test
    void theNewestTransactionThatWroteARecordIsTheProgress() {
        Progress first = Progress.start().published(Offsets.of(Map.of(0, 10L, 1, 4L)), 1);
        Progress second = first.published(Offsets.of(Map.of(0, 10L, 1, 9L)), 2);
        Progress third = second.published(Offsets.of(Map.of(0, 15L, 1, 9L)), 3); // wrote nothing to partition 1

        TopicTail.Found found =
                TopicTail.of(List.of(end(0, 30, third), end(1, 12, second), end(2, 0, null)), TOPIC_ID, "changes");

        assertThat(found).isEqualTo(new TopicTail.Found.Resumed(third));
    }

    @Test
    void aTopicNeverWrittenIsEmptyAndOneOfAnotherStreamIsElsewhere() {
        assertThat(TopicTail.of(List.of(end(0, 0, null)), TOPIC_ID, "changes"))
                .isInstanceOf(TopicTail.Found.Empty.class);
        assertThat(TopicTail.of(List.of(), TOPIC_ID, "changes")).isInstanceOf(TopicTail.Found.Empty.class);
        StreamLink.PartitionEnd other = new StreamLink.PartitionEnd(
                0, 8, Optional.of(Progress.start().published(Offsets.START, 1).header(UUID.randomUUID(), "changes")));
        assertThat(TopicTail.of(List.of(other), TOPIC_ID, "changes")).isInstanceOf(TopicTail.Found.Elsewhere.class);
    }

    /** An aborted attempt, a record of another writer or a removed tail at a partition's end: nothing is proven. */
    @Test
    void aPartitionWhoseEndIsNoCommittedRecordOfTheStreamProvesNothing() {
        Progress last = Progress.start().published(Offsets.of(Map.of(0, 10L)), 1);

        TopicTail.Found found = TopicTail.of(List.of(end(0, 30, last), end(1, 7, null)), TOPIC_ID, "changes");

        assertThat(found).isInstanceOf(TopicTail.Found.Unknown.class);
        assertThat(((TopicTail.Found.Unknown) found).why()).contains("partition 1 ends at offset 7");
    }

    @Test
    void anOperatorsMoveCountsOnFromTheNewestTransactionTheTopicHolds() {
        Progress old =
                Progress.start().published(Offsets.of(Map.of(0, 10L, 1, 4L)), 1).countingFrom(50);

        assertThat(TopicTail.newestTransaction(List.of(end(0, 30, old), end(1, 0, null)), TOPIC_ID, "changes"))
                .isEqualTo(50);
        assertThat(TopicTail.newestTransaction(List.of(end(0, 0, null)), TOPIC_ID, "changes"))
                .isZero();
    }
}
