package io.floe.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConsumerSummaryTest {

    @Test
    void parsesConsumerPerformanceHeaderAndValues() {
        List<String> output = List.of(
                "WARNING: Exiting before consuming the expected number of records: timeout (30000 ms) exceeded.",
                "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
                        + "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec",
                "2026-11-30 06:17:47:471, 2026-11-30 06:17:55:252, 195.3125, 25.1012, 200000, 25703.6371, 3855, "
                        + "3926, 49.7485, 50942.4350");
        assertThat(ConsumerSummary.parseConsumerPerformance(output))
                .contains(new ConsumerSummary(200_000, 195.3125, 25.1012, 25703.6371, 3855, 49.7485, 50942.4350));
    }

    @Test
    void consumerPerformanceWithoutStatsIsEmpty() {
        assertThat(ConsumerSummary.parseConsumerPerformance(List.of("Exception in thread \"main\" boom")))
                .isEmpty();
        assertThat(ConsumerSummary.parseConsumerPerformance(List.of(
                        "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
                                + "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec",
                        "The node does not support FIND_COORDINATOR",
                        "org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support"
                                + " FIND_COORDINATOR")))
                .isEmpty();
    }

    @Test
    void parsesTheAssignConsumerLine() {
        List<String> output = List.of("assign-consumer records=200000 bytes=204800000 elapsed.ms=4000 partitions=6");
        assertThat(ConsumerSummary.parseAssignConsumer(output)).hasValueSatisfying(s -> {
            assertThat(s.records()).isEqualTo(200_000);
            assertThat(s.megabytes()).isCloseTo(195.3125, within(1e-9));
            assertThat(s.fetchMegabytesPerSec()).isCloseTo(48.828125, within(1e-9));
            assertThat(s.recordsPerSec()).isCloseTo(50_000, within(1e-9));
            assertThat(s.groupJoinMs()).isZero();
        });
    }
}
