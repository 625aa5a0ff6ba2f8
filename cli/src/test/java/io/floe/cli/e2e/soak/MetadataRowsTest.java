package io.floe.cli.e2e.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.e2e.soak.MetadataRows.Excess;
import io.floe.cli.e2e.soak.MetadataRows.Kind;
import io.floe.cli.e2e.soak.MetadataRows.PartitionRows;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetadataRowsTest {

    @Test
    void rowsWithinTheBaselinePlusTheLiveKeysAreBounded() {
        List<PartitionRows> baseline = List.of(new PartitionRows(0, 40, 30, 2, 0, 100));
        List<PartitionRows> end = List.of(new PartitionRows(0, 50, 40, 2, 0, 900));

        assertThat(MetadataRows.excess(baseline, end, Map.of(0, 10L))).isEmpty();
    }

    @Test
    void markersGrowingPastTheBoundAreNamedByPartitionAndKind() {
        List<PartitionRows> baseline =
                List.of(new PartitionRows(0, 40, 30, 2, 0, 100), new PartitionRows(1, 40, 30, 2, 0, 100));
        List<PartitionRows> end =
                List.of(new PartitionRows(0, 45, 300, 2, 0, 900), new PartitionRows(1, 45, 35, 2, 0, 900));

        List<Excess> excess = MetadataRows.excess(baseline, end, Map.of(0, 10L, 1, 10L));

        assertThat(excess).containsExactly(new Excess(0, Kind.MARKERS, 30, 10, 300));
        assertThat(excess.get(0)).hasToString("txn_markers[0] 300 > 30 + 10");
    }

    @Test
    void aPartitionMissingFromTheBaselineHadNoRows() {
        List<Excess> excess =
                MetadataRows.excess(List.of(), List.of(new PartitionRows(3, 11, 0, 1, 0, 20)), Map.of(3, 10L));

        assertThat(excess).containsExactly(new Excess(3, Kind.BATCHES, 0, 10, 11));
    }
}
