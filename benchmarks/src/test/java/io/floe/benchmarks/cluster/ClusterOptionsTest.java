package io.floe.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterOptionsTest {

    @TempDir
    Path dir;

    private String[] args(String... extra) throws Exception {
        Path script = Files.writeString(dir.resolve("floe"), "#!/bin/sh\n");
        List<String> args = new ArrayList<>(List.of(
                "--driver-classpath", "d.jar", "--s3proxy-classpath", "s.jar", "--floe-script", script.toString()));
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }

    @Test
    void defaultsAreThreeAgentsAndDurableProducers() throws Exception {
        ClusterOptions options = ClusterOptions.parse(args());

        assertThat(options.agents()).isEqualTo(3);
        assertThat(options.partitions()).isEqualTo(24);
        assertThat(options.records()).isEqualTo(1_000_000);
        assertThat(options.pgDurable()).isTrue();
        assertThat(options.tailConsumer()).isTrue();
        assertThat(options.tailConsumers()).isEqualTo(3);
        assertThat(options.agentArguments()).isEmpty();
        assertThat(options.warmupRecords()).isEqualTo(100_000);
        assertThat(options.steadyRecords()).isEqualTo(2_000 * 30);
        assertThat(options.producerPropertyArgs())
                .containsExactly("acks=all", "enable.idempotence=true", "linger.ms=5", "batch.size=131072");
    }

    @Test
    void producerPropertiesOverrideTheDefaultsInPlaceAndAgentArgumentsAccumulate() throws Exception {
        ClusterOptions options = ClusterOptions.parse(args(
                "--producer-prop",
                "linger.ms=20",
                "--producer-prop",
                "compression.type=lz4",
                "--agent-arg",
                "--flush-interval-ms=100",
                "--agent-arg",
                "--cache-bytes=1",
                "--records",
                "200_000",
                "--no-tail-consumer",
                "--pg-durable",
                "false",
                "--steady-rate",
                "0"));

        assertThat(options.producerPropertyArgs())
                .containsExactly(
                        "acks=all",
                        "enable.idempotence=true",
                        "linger.ms=20",
                        "batch.size=131072",
                        "compression.type=lz4");
        assertThat(options.agentArguments()).containsExactly("--flush-interval-ms=100", "--cache-bytes=1");
        assertThat(options.records()).isEqualTo(200_000);
        assertThat(options.tailConsumer()).isFalse();
        assertThat(options.pgDurable()).isFalse();
        assertThat(options.warmupRecords()).isEqualTo(20_000);
        assertThat(options.steadyRecords()).isZero();
    }

    @Test
    void refusesWhatCannotRun() throws Exception {
        assertThatThrownBy(() -> ClusterOptions.parse(new String[] {"--records", "10"}))
                .hasMessageContaining("--driver-classpath is required");
        assertThatThrownBy(() -> ClusterOptions.parse(args("--records", "3")))
                .hasMessageContaining("fewer than the 4 producers");
        assertThatThrownBy(() -> ClusterOptions.parse(args("--pg-durable", "yes")))
                .hasMessageContaining("yes");
        assertThatThrownBy(() -> ClusterOptions.parse(args("--producer-prop", "acks")))
                .hasMessageContaining("KEY=VALUE");
        assertThatThrownBy(() -> ClusterOptions.parse(args("--bogus", "1"))).hasMessageContaining("unknown option");
        assertThatThrownBy(() -> ClusterOptions.parse(args("--help"))).hasMessageContaining("Usage");
    }
}
