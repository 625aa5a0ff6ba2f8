package io.floe.benchmarks.tableflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The results file's lines and the comparison of two builds; the figures themselves are never pass/fail. */
class BuildComparisonTest {

    @Test
    void aMeasurementSurvivesItsResultsLine() {
        Measurement measurement = new Measurement("before", "changes", "upsert", 2000, 4.0, 0.5, 2.0);

        assertThat(Measurement.parse(measurement.line())).isEqualTo(measurement);
        assertThatThrownBy(() -> Measurement.parse("before\tchanges")).hasMessageContaining("7 tab-separated");
    }

    @Test
    void eachBuildGetsItsMediansAndLaterBuildsTheirRatioToTheFirst() {
        List<String> report = BuildComparison.compare(List.of(
                new Measurement("before", "changes", "append", 1000, 10, 1, 4),
                new Measurement("after", "changes", "append", 1000, 5, 0.5, 2),
                new Measurement("before", "changes", "append", 1000, 20, 2, 8),
                new Measurement("after", "changes", "append", 1000, 4, 0.5, 2)));

        assertThat(report.get(0)).startsWith("## Builds compared: before, after");
        assertThat(report).contains(
                "| changes | append | before | 2 | 1000 | 50 [50-100] | 500 [500-1000] | 125 [125-250] | - | - | - |",
                "| changes | append | after | 2 | 1000 | 200 [200-250] | 2000 [2000-2000] | 500 [500-500] | 4.00 | 4.00"
                        + " | 4.00 |");
    }

    @Test
    void anUpsertPublicationIsASnapshotOrTheWholeHistory() {
        ChangeVariant upsert = ChangeVariant.parse("upsert");

        assertThat(publication(upsert, 900, java.util.Map.of("r", 300L)).consistent()).isTrue();
        assertThat(publication(upsert, 900, java.util.Map.of("c", 300L, "u", 600L)).consistent()).isTrue();
        assertThat(publication(upsert, 900, java.util.Map.of("c", 300L, "u", 599L)).consistent()).isFalse();
        assertThat(publication(ChangeVariant.parse("append"), 900, java.util.Map.of("c", 900L)).consistent()).isFalse();
    }

    @Test
    void changeVariantsParseAsTheReportNamesThem() {
        for (String name : List.of("append", "upsert", "upsert-snapshot")) {
            assertThat(ChangeVariant.parse(name).toString()).isEqualTo(name);
        }
        assertThat(ChangeVariant.parse("upsert-snapshot").historyDeleted()).isTrue();
        assertThatThrownBy(() -> ChangeVariant.parse("append+delta")).hasMessageContaining("append+delta");
    }

    private static ChangePublication publication(ChangeVariant variant, long records, java.util.Map<String, Long> ops) {
        long changes = ops.values().stream().mapToLong(Long::longValue).sum();
        return new ChangePublication(variant, records, 300, 300, changes, ops, 1, 1, 1, 0);
    }
}
