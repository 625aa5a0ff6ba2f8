package io.floe.kafka;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * An agent on real stores in a temporary directory (SQLite metadata, local object store), optionally
 * with a Kafka server in front of it on 127.0.0.1. Closes everything it started.
 */
public final class AgentFixture implements AutoCloseable {

    private final MetadataStore metadata;
    private final ObjectStore objects;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Agent agent;
    private KafkaServer server;

    private AgentFixture(Path dir, AgentConfig config) {
        this(dir, config, UnaryOperator.identity());
    }

    /** The agent sees the store through {@code view} (a decorator that intercepts some operations). */
    private AgentFixture(Path dir, AgentConfig config, UnaryOperator<MetadataStore> view) {
        this.metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        this.objects = new LocalObjectStore(dir.resolve("objects"));
        this.agent = Agent.start(config, AgentMetadata.of(view.apply(metadata)), objects, meters, Clock.systemUTC());
    }

    /** An agent alone, advertising 127.0.0.1:9092 (nothing listens there). */
    public static AgentFixture agentOnly(Path dir) {
        return new AgentFixture(dir, testConfig(9092));
    }

    /** An agent with a Kafka server on 127.0.0.1, advertising the port the server listens on. */
    public static AgentFixture withServer(Path dir, KafkaServerConfig serverConfig) {
        return withServer(dir, serverConfig, UnaryOperator.identity());
    }

    public static AgentFixture withServer(Path dir) {
        return withServer(dir, KafkaServerConfig.defaults());
    }

    /** An agent with a Kafka server on 127.0.0.1, its configuration the tests' adjusted by {@code adjust}. */
    public static AgentFixture withServer(Path dir, UnaryOperator<AgentConfig> adjust) {
        return withServer(dir, KafkaServerConfig.defaults(), adjust);
    }

    private static AgentFixture withServer(
            Path dir, KafkaServerConfig serverConfig, UnaryOperator<AgentConfig> adjust) {
        int port = freePort();
        AgentFixture fixture = new AgentFixture(dir, adjust.apply(testConfig(port)));
        fixture.server = KafkaServer.start(serverConfig.withListener("127.0.0.1", port), fixture.agent);
        return fixture;
    }

    /** An agent with a Kafka server on 127.0.0.1 that sees its store through {@code view}. */
    public static AgentFixture withServerOnStore(Path dir, UnaryOperator<MetadataStore> view) {
        int port = freePort();
        AgentFixture fixture = new AgentFixture(dir, testConfig(port), view);
        fixture.server = KafkaServer.start(KafkaServerConfig.defaults().withListener("127.0.0.1", port), fixture.agent);
        return fixture;
    }

    private static AgentConfig testConfig(int port) {
        return AgentConfig.defaults().withAdvertised("127.0.0.1", port).withFlush(Duration.ofMillis(5), 1024 * 1024);
    }

    public Agent agent() {
        return agent;
    }

    public KafkaServer server() {
        return server;
    }

    public SimpleMeterRegistry meters() {
        return meters;
    }

    public String bootstrap() {
        return "127.0.0.1:" + server.port();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        agent.close();
        metadata.close();
        objects.close();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
