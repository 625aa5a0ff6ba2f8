package io.floe.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarkOptionsTest {

    private static BenchmarkOptions parse(String... extra) {
        List<String> args =
                new ArrayList<>(List.of("--kafka-classpath", "k.jar", "--driver-classpath", "d.jar", "--kafka-only"));
        args.addAll(List.of(extra));
        return BenchmarkOptions.parse(args.toArray(String[]::new));
    }

    @Test
    void steadyPhaseRunsFifteenSecondsAtFiveThousandRecordsPerSecondByDefault() {
        BenchmarkOptions options = parse();
        assertThat(options.latencyPhase()).isTrue();
        assertThat(options.latencyRate()).isEqualTo(5_000);
        assertThat(options.latencyRecords()).isEqualTo(75_000);
        assertThat(options.latencyWarmupRecords()).isEqualTo(15_000);
    }

    @Test
    void aTransactionDurationMakesTheSaturationProducerTransactional(@TempDir Path dir) throws IOException {
        assertThat(parse().transactionDurationMs()).isZero();
        assertThat(new PerfRunner(parse(), dir).producerArgs("b:1", "t")).doesNotContain("--transactional-id");

        List<String> args = new PerfRunner(parse("--transaction-duration-ms", "100"), dir).producerArgs("b:1", "t");

        assertThat(String.join(" ", args))
                .contains("--transactional-id " + PerfRunner.TRANSACTIONAL_ID + " --transaction-duration-ms 100");
    }

    @Test
    void latencyRecordsDefaultToFifteenTimesTheRate() {
        BenchmarkOptions options = parse("--latency-rate", "2000");
        assertThat(options.latencyRate()).isEqualTo(2_000);
        assertThat(options.latencyRecords()).isEqualTo(30_000);
        assertThat(options.latencyWarmupRecords()).isEqualTo(6_000);
    }

    @Test
    void latencyRecordsCanBeGiven() {
        BenchmarkOptions options = parse("--latency-records", "10_000", "--latency-rate", "2000");
        assertThat(options.latencyRate()).isEqualTo(2_000);
        assertThat(options.latencyRecords()).isEqualTo(10_000);
        assertThat(options.latencyWarmupRecords()).isEqualTo(2_000);
        assertThat(parse("--latency-warmup-records", "0").latencyWarmupRecords())
                .isZero();
        assertThat(parse("--latency-warmup-records", "1000").latencyWarmupRecords())
                .isEqualTo(1_000);
    }

    @Test
    void latencyRateZeroTurnsThePhaseOff() {
        BenchmarkOptions options = parse("--latency-rate", "0", "--latency-records", "10000");
        assertThat(options.latencyPhase()).isFalse();
        assertThat(options.latencyRecords()).isZero();
        assertThat(options.latencyWarmupRecords()).isZero();
    }

    @Test
    void rejectsBadLatencyOptions() {
        assertThatThrownBy(() -> parse("--latency-rate", "-1")).hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> parse("--latency-records", "0")).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> parse("--latency-rate", "fast")).hasMessageContaining("not a whole number");
        assertThatThrownBy(() -> parse("--latency-records", "1000", "--latency-warmup-records", "1000"))
                .hasMessageContaining("must be below --latency-records 1000");
        assertThatThrownBy(
                        () -> parse("--latency-rate", "10", "--latency-records", "100000", "--tool-timeout-s", "600"))
                .hasMessageContaining("--tool-timeout-s 600");
    }

    @Test
    void usageListsTheLatencyOptions() {
        assertThatThrownBy(() -> parse("--help"))
                .hasMessageContaining("--latency-rate N")
                .hasMessageContaining("--latency-records M")
                .hasMessageContaining("--latency-warmup-records W");
    }

    @Test
    void flushIntervalIsTheAgentsDefaultUnlessSet() {
        assertThat(parse().floeFlushInterval(Map.of()))
                .contains(new BenchmarkOptions.FlushInterval(20, "the agent's default"));
        assertThat(parse().floeFlushInterval(Map.of("FLOE_FLUSH_INTERVAL_MS", "30")))
                .contains(new BenchmarkOptions.FlushInterval(30, "FLOE_FLUSH_INTERVAL_MS"));
        assertThat(parse("--flush-interval-ms", "50").floeFlushInterval(Map.of("FLOE_FLUSH_INTERVAL_MS", "30")))
                .contains(new BenchmarkOptions.FlushInterval(50, "--flush-interval-ms"));
        assertThat(parse("--flush-interval-ms", "50", "--floe-arg", "--flush-interval-ms=10")
                        .floeFlushInterval(Map.of()))
                .contains(new BenchmarkOptions.FlushInterval(10, "--floe-arg"));
        assertThat(parse("--floe-arg", "--config", "--floe-arg", "agent.properties")
                        .floeFlushInterval(Map.of()))
                .isEqualTo(Optional.empty());
    }
}
