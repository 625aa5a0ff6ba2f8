package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.NodeIdClaim;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.postgres.TestPostgres;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Node ids at start-up, on a PostgreSQL shared with a store standing in for another agent: a given id
 * that a live agent holds refuses the start with one line naming the holder, a crashed predecessor's
 * lease is waited out, and without {@code --node-id} the agent takes a free id.
 */
class NodeIdIT {

    @TempDir
    Path dataDir;

    private String metadataUrl;

    @BeforeEach
    void database() {
        metadataUrl = TestPostgres.get().createDatabaseUrl();
    }

    @Test
    void aGivenIdHeldByALiveAgentRefusesTheStartWithOneLineNamingIt() throws IOException {
        try (MetadataStore other = SqlMetadataStore.openPostgres(metadataUrl, Clock.systemUTC())) {
            // A live agent renews its lease every second; an hour stands for "renewed throughout".
            assertThat(other.claimNodeId(3, "agent-elsewhere", Instant.now(), Duration.ofHours(1)))
                    .isInstanceOf(NodeIdClaim.Granted.class);
            StringWriter err = new StringWriter();
            CommandLine floe = Floe.commandLine(Map.of());
            floe.setErr(new PrintWriter(err));

            int exitCode = floe.execute(arguments("--node-id", "3").toArray(String[]::new));

            assertThat(exitCode).isEqualTo(1);
            assertThat(err.toString())
                    .startsWith("floe agent: cannot start node id 3: node id 3 is held by agent" + " agent-elsewhere")
                    .contains("start this one with another --node-id, or without --node-id")
                    .hasLineCount(1);
        }
    }

    @Test
    void aCrashedPredecessorsLeaseIsWaitedOutAndAnAgentWithoutAnIdTakesAFreeOne() throws Exception {
        try (MetadataStore other = SqlMetadataStore.openPostgres(metadataUrl, Clock.systemUTC())) {
            other.claimNodeId(0, "agent-crashed", Instant.now(), Duration.ofSeconds(2));

            try (AgentRuntime pinned = AgentRuntime.start(settings("--node-id", "0"), Clock.systemUTC());
                    AgentRuntime allocated = AgentRuntime.start(settings(), Clock.systemUTC())) {
                assertThat(other.claimNodeId(0, "agent-next", Instant.now(), Duration.ofSeconds(6)))
                        .isInstanceOfSatisfying(
                                NodeIdClaim.Held.class,
                                held -> assertThat(held.holder().agentId())
                                        .startsWith("agent-")
                                        .isNotEqualTo("agent-crashed"));
                assertThat(other.allocateNodeId("agent-next", Instant.now(), Duration.ofSeconds(6))
                                .nodeId())
                        .as("ids 0 and 1 are held by the two agents")
                        .isEqualTo(2);
            }
        }
    }

    /** An agent's arguments, on a Kafka port of its own. */
    private List<String> arguments(String... more) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        List<String> args = new ArrayList<>(List.of(
                "agent",
                "--listen",
                "127.0.0.1:" + port,
                "--http-listen",
                "127.0.0.1:0",
                "--data-dir",
                dataDir.toString(),
                "--metadata",
                metadataUrl,
                "--objects",
                "file:" + dataDir.resolve("objects"),
                "--tableflow",
                "false"));
        args.addAll(List.of(more));
        return args;
    }

    private AgentSettings settings(String... more) throws IOException {
        CommandLine floe = Floe.commandLine(Map.of());
        CommandLine.ParseResult parsed = floe.parseArgs(arguments(more).toArray(String[]::new));
        AgentCommand command = parsed.subcommand().commandSpec().commandLine().getCommand();
        return command.settings();
    }
}
