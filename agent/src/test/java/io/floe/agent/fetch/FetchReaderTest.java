package io.floe.agent.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class FetchReaderTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final ObjectKey A = new ObjectKey("segments/00/a.seg");
    private static final ObjectKey B = new ObjectKey("segments/00/b.seg");

    @Test
    void backToBackBatchesOfOneObjectFormOneRunAndAGapAnotherObjectOrAMarkerStartsANewOne() {
        List<LogEntry> entries = List.of(
                new BatchCoordinate(TP, 0, 4, A, new ByteRange(5, 100), 1),
                new BatchCoordinate(TP, 5, 9, A, new ByteRange(105, 50), 2),
                // A batch of the object not in the list (a duplicate, another partition) lies between.
                new BatchCoordinate(TP, 10, 12, A, new ByteRange(200, 30), 3),
                new BatchCoordinate(TP, 13, 20, B, new ByteRange(230, 40), 4),
                // A marker between two back-to-back batches splits them.
                new TransactionMarker(TP, 21, 7, (short) 0, true, 13, 0, 5),
                new BatchCoordinate(TP, 22, 22, B, new ByteRange(270, 10), 6));

        List<FetchReader.Part> parts = FetchReader.parts(entries);

        assertThat(parts)
                .extracting(FetchReader.Part::sizeInBytes)
                .containsExactly(150, 30, 40, TransactionMarker.SIZE_IN_BYTES, 10);
        assertThat(parts.get(3)).isEqualTo(new FetchReader.Marker((TransactionMarker) entries.get(4)));
        List<FetchReader.Run> runs = parts.stream()
                .filter(FetchReader.Run.class::isInstance)
                .map(FetchReader.Run.class::cast)
                .toList();
        assertThat(runs)
                .extracting(FetchReader.Run::range)
                .containsExactly(
                        new ByteRange(5, 150), new ByteRange(200, 30), new ByteRange(230, 40), new ByteRange(270, 10));
        assertThat(runs).extracting(FetchReader.Run::object).containsExactly(A, A, B, B);
        assertThat(runs.get(0).batches())
                .extracting(BatchCoordinate::baseOffset)
                .containsExactly(0L, 5L);
    }

    @Test
    void mergesTouchingAndOverlappingRangesIntoOneRead() {
        List<ByteRange> merged = FetchReader.merge(List.of(
                new ByteRange(200, 50),
                new ByteRange(5, 10),
                new ByteRange(15, 20),
                new ByteRange(30, 10),
                new ByteRange(251, 4)));

        assertThat(merged).containsExactly(new ByteRange(5, 35), new ByteRange(200, 50), new ByteRange(251, 4));
    }
}
