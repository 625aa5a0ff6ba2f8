package io.floe.benchmarks.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MeasurementsTest {

    private static final PartitionDigest P0 = new PartitionDigest(3, 0, 2, 0xabcL);
    private static final PartitionDigest P1 = new PartitionDigest(2, 0, 1, 0xdefL);
    private static final CompactionRun COMPACTION = new CompactionRun(1, 1, 1_000_000_000L, 2_000, 500, 1_000, 6, 0,
            10, 1, 1, 10);
    private static final Storage STORAGE = new Storage(10, 1_000, 0, 10, 1_000);

    @Test
    void readsThatAgreeHaveNoMismatch() {
        Measurements m = measurements(List.of(pass("u1", P0, P1), pass("u2", P0, P1)),
                List.of(pass("c1", P0, P1), pass("c2", P0, P1)));
        assertThat(m.mismatches(5)).isEmpty();
        assertThat(m.readAmplification()).isEqualTo(2.0);
        assertThat(m.writeAmplification()).isEqualTo(1.0);
    }

    @Test
    void aPassThatDiffersFromTheFirstIsReported() {
        PartitionDigest other = new PartitionDigest(2, 0, 1, 0x123L);
        Measurements m = measurements(List.of(pass("u1", P0, P1), pass("u2", P0, P1)),
                List.of(pass("c1", P0, other), pass("c2", P0, P1)));
        assertThat(m.mismatches(5)).singleElement().asString().startsWith("partition 1: c1 read").contains("u1 read");
    }

    @Test
    void fewerRecordsThanProducedAreReported() {
        Measurements m = measurements(List.of(), List.of(pass("c1", P0, P1), pass("c2", P0, P1)));
        assertThat(m.mismatches(6)).containsExactly("c1 read 5 records, 6 were produced");
    }

    @Test
    void aMissingPartitionIsReported() {
        Measurements m = measurements(List.of(pass("u1", P0, P1)), List.of(pass("c1", P0)));
        assertThat(m.mismatches(5)).singleElement().asString().contains("c1 read null");
    }

    private static Measurements measurements(List<ReadPass> uncompacted, List<ReadPass> compacted) {
        return new Measurements(1, 1, 10, 1_000, STORAGE, uncompacted, COMPACTION, STORAGE, compacted);
    }

    private static ReadPass pass(String label, PartitionDigest... digests) {
        long records = List.of(digests).stream().mapToLong(PartitionDigest::records).sum();
        return new ReadPass(label, 2, 1, 1, 1, 100, records, 1, 100, 0, List.of(digests));
    }
}
