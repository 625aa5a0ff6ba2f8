package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What the REST catalog tells clients about the object store. */
class TableflowSetupTest {

    private static AgentSettings parse(String... args) {
        CommandLine.ParseResult result = Floe.commandLine(Map.of()).parseArgs(args);
        AgentCommand command = result.subcommand().commandSpec().commandLine().getCommand();
        return command.settings();
    }

    @Test
    void anS3StoreTellsClientsHowToReachTheBucketButNotTheCredentials() {
        AgentSettings settings = parse(
                "agent",
                "--objects",
                "s3://floe-data/c1",
                "--s3-endpoint",
                "http://127.0.0.1:9000",
                "--s3-region",
                "eu-west-1",
                "--s3-path-style",
                "true",
                "--s3-access-key-id",
                "id",
                "--s3-secret-access-key",
                "s3cr3t");

        assertThat(TableflowSetup.restCatalogDefaults(settings))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "client.region",
                        "eu-west-1",
                        "s3.endpoint",
                        "http://127.0.0.1:9000",
                        "s3.path-style-access",
                        "true"));
    }

    @Test
    void aLocalStoreNeedsNoDefaults() {
        assertThat(TableflowSetup.restCatalogDefaults(parse("agent", "--objects", "file:/tmp/floe-objects")))
                .isEmpty();
    }
}
