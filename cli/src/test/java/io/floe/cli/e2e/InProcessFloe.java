package io.floe.cli.e2e;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.kafka.KafkaServer;
import io.floe.kafka.KafkaServerConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** A whole Floe agent in the test's JVM, on embedded stores in {@code dataDir}, on a free loopback port. */
final class InProcessFloe implements AutoCloseable {

    private final MetadataStore metadata;
    private final ObjectStore objects;
    private final Agent agent;
    private final KafkaServer server;

    private InProcessFloe(Path dataDir, Duration flushInterval, int port, UnaryOperator<MetadataStore> decorate) {
        metadata = decorate.apply(SqlMetadataStore.openSqlite(dataDir.resolve("metadata.db")));
        objects = new LocalObjectStore(dataDir.resolve("objects"));
        AgentConfig config =
                AgentConfig.defaults().withAdvertised("127.0.0.1", port).withFlush(flushInterval, 8L * 1024 * 1024);
        agent = Agent.start(config, AgentMetadata.of(metadata), objects, new SimpleMeterRegistry(), Clock.systemUTC());
        server = KafkaServer.start(KafkaServerConfig.defaults().withListener("127.0.0.1", port), agent);
    }

    static InProcessFloe start(Path dataDir) {
        return start(dataDir, Duration.ofMillis(10));
    }

    static InProcessFloe start(Path dataDir, Duration flushInterval) {
        return new InProcessFloe(dataDir, flushInterval, freePort(), UnaryOperator.identity());
    }

    /** An agent whose metadata store is wrapped by {@code decorate} (to inject faults). */
    static InProcessFloe start(Path dataDir, UnaryOperator<MetadataStore> decorate) {
        return new InProcessFloe(dataDir, Duration.ofMillis(10), freePort(), decorate);
    }

    String bootstrap() {
        return "127.0.0.1:" + server.port();
    }

    Agent agent() {
        return agent;
    }

    /** The whole metadata store the agent runs on (as decorated). */
    MetadataStore metadata() {
        return metadata;
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Graceful shutdown in the CLI's order: stop serving, flush and commit, close the stores. */
    @Override
    public void close() {
        agent.groups().close();
        server.close();
        agent.close();
        metadata.close();
        objects.close();
    }
}
