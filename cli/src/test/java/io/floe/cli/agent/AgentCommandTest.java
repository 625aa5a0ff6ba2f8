package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The {@code agent} command's parsing, through picocli, up to the point where it would start an agent. */
class AgentCommandTest {

    @TempDir
    Path dir;

    private static AgentSettings parse(Map<String, String> env, String... args) {
        CommandLine floe = Floe.commandLine(env);
        CommandLine.ParseResult result = floe.parseArgs(args);
        AgentCommand command = result.subcommand().commandSpec().commandLine().getCommand();
        return command.settings();
    }

    @Test
    void everySettingHasItsFlag() {
        CommandLine agent = Floe.commandLine(Map.of()).getSubcommands().get("agent");

        for (Setting setting : Setting.values()) {
            OptionSpec option = agent.getCommandSpec().findOption(setting.flag());
            assertThat(option).as(setting.flag()).isNotNull();
        }
        assertThat(agent.getCommandSpec().findOption("--config")).isNotNull();
    }

    @Test
    void flagsOverrideEnvironmentAndConfigFile() throws IOException {
        Path config =
                Files.writeString(dir.resolve("floe.properties"), "flush-interval-ms=30\nnode-id=3\ncache-bytes=99\n");
        Map<String, String> env = Map.of("FLOE_NODE_ID", "4", "FLOE_FLUSH_INTERVAL_MS", "40");

        AgentSettings settings = parse(env, "agent", "--config", config.toString(), "--flush-interval-ms", "50");

        assertThat(settings.flushIntervalMs()).isEqualTo(50);
        assertThat(settings.nodeId()).isEqualTo(4);
        assertThat(settings.cacheBytes()).isEqualTo(99);
    }

    @Test
    void theConfigFileCanComeFromTheEnvironment() throws IOException {
        Path config = Files.writeString(dir.resolve("floe.properties"), "default-partitions=12\n");

        AgentSettings settings = parse(Map.of("FLOE_CONFIG", config.toString()), "agent");

        assertThat(settings.defaultPartitions()).isEqualTo(12);
    }

    @Test
    void anInvalidValueExitsWithTwoAndOneLine() {
        StringWriter err = new StringWriter();
        CommandLine floe = Floe.commandLine(Map.of("FLOE_DEFAULT_PARTITIONS", "many"));
        floe.setErr(new PrintWriter(err));

        int exitCode = floe.execute("agent", "--data-dir", dir.toString());

        assertThat(exitCode).isEqualTo(2);
        assertThat(err.toString())
                .isEqualTo("floe agent: invalid value 'many' for --default-partitions"
                        + " (from environment variable FLOE_DEFAULT_PARTITIONS): expected an integer from 1 to 2147483647"
                        + System.lineSeparator());
    }

    @Test
    void aMissingConfigFileExitsWithTwo() {
        StringWriter err = new StringWriter();
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setErr(new PrintWriter(err));

        int exitCode =
                floe.execute("agent", "--config", dir.resolve("nope.properties").toString());

        assertThat(exitCode).isEqualTo(2);
        assertThat(err.toString()).contains("nope.properties does not exist").doesNotContain("Exception");
    }

    @Test
    void helpListsTheOptionsWithTheirDefaults() {
        String help = Floe.commandLine(Map.of()).getSubcommands().get("agent").getUsageMessage();

        assertThat(help.replaceAll("\\s+", " "))
                .contains(
                        "--listen=HOST:PORT",
                        "Default: 127.0.0.1:9092",
                        "--flush-interval-ms=N",
                        "FLOE_FLUSH_INTERVAL_MS",
                        "--config=FILE",
                        "--node-id=N",
                        "Default: allocated");
    }

    @Test
    void helpListsTheStoreAndMaintenanceOptions() {
        String help = Floe.commandLine(Map.of()).getSubcommands().get("agent").getUsageMessage();

        assertThat(help)
                .contains(
                        "--metadata=URL",
                        "--objects=URL",
                        "s3://BUCKET/PREFIX",
                        "--s3-endpoint=URL",
                        "--s3-region=REGION",
                        "--s3-path-style[=true|false]",
                        "--s3-access-key-id=ID",
                        "--s3-secret-access-key=SECRET",
                        "--maintenance[=true|false]",
                        "--compaction-target-bytes=N",
                        "--compaction-interval-ms=N",
                        "--key-compaction-interval-ms=N",
                        "--key-compaction-buffer-bytes=N",
                        "--retention-check-interval-ms=N",
                        "--object-delete-delay-ms=N",
                        "--orphan-grace-ms=N",
                        "--producer-id-expiration-ms=N",
                        "--transactional-id-expiration-ms=N");
        assertThat(help.replaceAll("\\s+", " "))
                .contains("at least 300000", "Default: 600000", "Default: sqlite:<data-dir>/metadata.db");
    }

    @Test
    void storeFlagsReachTheSettings() {
        AgentSettings settings = parse(
                Map.of("FLOE_S3_SECRET_ACCESS_KEY", "s3cr3t"),
                "agent",
                "--metadata",
                "postgresql://floe@db.example/floe",
                "--objects",
                "s3://floe-data/c1",
                "--s3-endpoint",
                "http://127.0.0.1:9000",
                "--s3-path-style",
                "true",
                "--s3-access-key-id",
                "id",
                "--maintenance",
                "false",
                "--compaction-target-bytes",
                "4194304");

        assertThat(settings.metadataUrl()).isEqualTo("postgresql://floe@db.example/floe");
        assertThat(settings.objectsUrl()).isEqualTo("s3://floe-data/c1");
        assertThat(settings.s3().pathStyleAccess()).isTrue();
        assertThat(settings.s3().credentials())
                .hasValueSatisfying(c -> assertThat(c.secretAccessKey()).isEqualTo("s3cr3t"));
        assertThat(settings.maintenance()).isFalse();
        assertThat(settings.maintenanceConfig().compactionTargetBytes()).isEqualTo(4_194_304);
    }

    @Test
    void aBooleanFlagAloneMeansTrue() {
        assertThat(parse(Map.of(), "agent", "--s3-path-style").s3().pathStyleAccess())
                .isTrue();
        AgentSettings settings = parse(Map.of(), "agent", "--maintenance", "--tableflow", "--s3-path-style");
        assertThat(settings.maintenance()).isTrue();
        assertThat(settings.tableflow()).isTrue();
        assertThat(settings.s3().pathStyleAccess()).isTrue();
        assertThat(parse(Map.of("FLOE_TABLEFLOW", "false"), "agent", "--tableflow", "--listen", "127.0.0.1:9093")
                        .tableflow())
                .as("the bare flag wins over the environment")
                .isTrue();
    }

    @Test
    void aBooleanFlagStillTakesAValue() {
        assertThat(parse(Map.of(), "agent", "--s3-path-style", "true").s3().pathStyleAccess())
                .isTrue();
        assertThat(parse(Map.of(), "agent", "--maintenance", "false").maintenance())
                .isFalse();
        assertThat(parse(Map.of(), "agent", "--maintenance=false").maintenance())
                .isFalse();
        assertThat(parse(Map.of(), "agent", "--tableflow", "FALSE", "--maintenance")
                        .tableflow())
                .isFalse();
        assertThat(parse(Map.of(), "agent", "--s3-path-style=TRUE").s3().pathStyleAccess())
                .isTrue();
    }

    @Test
    void aBooleanFlagWithAnotherWordFailsAsBefore() {
        for (String[] args : new String[][] {{"agent", "--s3-path-style", "yes"}, {"agent", "--s3-path-style=yes"}}) {
            StringWriter err = new StringWriter();
            CommandLine floe = Floe.commandLine(Map.of());
            floe.setErr(new PrintWriter(err));

            int exitCode = floe.execute(args);

            assertThat(exitCode).isEqualTo(2);
            assertThat(err.toString())
                    .isEqualTo("floe agent: invalid value 'yes' for --s3-path-style: expected true" + " or false"
                            + System.lineSeparator());
        }
    }

    @Test
    void aBadStoreUrlExitsWithTwoAndNoPassword() {
        StringWriter err = new StringWriter();
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setErr(new PrintWriter(err));

        int exitCode = floe.execute("agent", "--metadata", "postgresql://floe:hunter2@/floe");

        assertThat(exitCode).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("floe agent: invalid value 'postgresql://floe:****@/floe' for --metadata:")
                .doesNotContain("hunter2")
                .hasLineCount(1);
    }
}
