package io.floe.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProducerSummaryTest {

    private static final String PROGRESS =
            "91476 records sent, 18229.6 records/sec (17.80 MB/sec), 1619.4 ms avg latency, 2265.0 ms max latency.";
    private static final String FINAL = "200000 records sent, 15397.644160 records/sec (15.04 MB/sec), "
            + "1324.07 ms avg latency, 2859.00 ms max latency, 1372 ms 50th, 1854 ms 95th, 2029 ms 99th, "
            + "2221 ms 99.9th.";
    private static final String STEADY = "150000 steady state records sent, 16000.5 records/sec (15.63 MB/sec), "
            + "1200.00 ms avg latency, 2100.00 ms max latency, 1300 ms 50th, 1800 ms 95th, 2000 ms 99th, "
            + "2100 ms 99.9th.";

    @Test
    void parsesTheFinalSummaryAndIgnoresProgressLines() {
        assertThat(ProducerSummary.parse(List.of("[2026] WARN something", PROGRESS, FINAL)))
                .contains(new ProducerSummary(
                        200_000, false, 15397.644160, 15.04, 1324.07, 2859.00, 1372, 1854, 2029, 2221));
    }

    @Test
    void prefersTheSteadyStateSummaryWhenWarmupRecordsWereGiven() {
        assertThat(ProducerSummary.parse(List.of(PROGRESS, FINAL, STEADY))).hasValueSatisfying(s -> {
            assertThat(s.steadyState()).isTrue();
            assertThat(s.records()).isEqualTo(150_000);
            assertThat(s.megabytesPerSec()).isEqualTo(15.63);
            assertThat(s.p99Ms()).isEqualTo(2000);
        });
    }

    @Test
    void isEmptyWithoutASummary() {
        assertThat(ProducerSummary.parse(List.of(PROGRESS, "org.apache.kafka.common.KafkaException: boom")))
                .isEmpty();
    }
}
