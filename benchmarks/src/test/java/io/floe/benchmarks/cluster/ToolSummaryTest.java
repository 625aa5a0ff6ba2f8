package io.floe.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ToolSummaryTest {

    @Test
    void theLastSummaryLineWins() {
        List<String> log = List.of(
                "progress acked=10",
                "load-producer records=1 bytes=2",
                "noise",
                "  load-producer records=5 bytes=5120 errors=0 elapsed.ms=900  ",
                "load-producers records=7");

        ToolSummary summary = ToolSummary.parse(log, "load-producer").orElseThrow();

        assertThat(summary.longValue("records")).isEqualTo(5);
        assertThat(summary.longValue("elapsed.ms")).isEqualTo(900);
        assertThat(summary.longValue("absent", -1)).isEqualTo(-1);
        assertThatThrownBy(() -> summary.longValue("absent")).hasMessageContaining("absent");
        assertThat(ToolSummary.parse(log, "group-consumer")).isEmpty();
    }
}
