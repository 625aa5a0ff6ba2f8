package io.floe.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

    @Test
    void spreadGivesMedianAndRange() {
        assertThat(Report.spread(List.of(1.0, 2.0, 10.0), "%.1f")).isEqualTo("2.0 [1.0–10.0]");
        assertThat(Report.spread(List.of(10.0, 1.0, 2.0), "%.1f")).isEqualTo("2.0 [1.0–10.0]");
        assertThat(Report.spread(List.of(1.0, 3.0), "%.2f")).isEqualTo("2.00 [1.00–3.00]");
        assertThat(Report.spread(List.of(4.0), "%.0f")).isEqualTo("4");
        assertThat(Report.spread(List.of(), "%.0f")).isEqualTo("n/a");
    }
}
