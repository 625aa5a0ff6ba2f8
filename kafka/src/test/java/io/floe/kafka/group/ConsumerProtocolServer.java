package io.floe.kafka.group;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.group.ConsumerGroupConfig;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.NewTopic;
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
import java.util.Map;

/**
 * An agent on SQLite and a local object store with the standard Kafka server on 127.0.0.1, its
 * consumer-protocol groups on short timeouts (a 2 s session, 200 ms heartbeats) so that a member
 * that stops heartbeating is gone within seconds.
 */
final class ConsumerProtocolServer implements AutoCloseable {

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);
    static final Duration HEARTBEAT_INTERVAL = Duration.ofMillis(200);

    private final MetadataStore metadata;
    private final ObjectStore objects;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Agent agent;
    private final KafkaServer server;

    ConsumerProtocolServer(Path dir) {
        int port = freePort();
        metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        objects = new LocalObjectStore(dir.resolve("objects"));
        GroupCoordinatorConfig groups = GroupCoordinatorConfig.defaults()
                .withInitialRebalanceDelay(Duration.ofMillis(200))
                .withMinSessionTimeout(Duration.ofMillis(500))
                .withConsumerGroups(ConsumerGroupConfig.defaults().withTimeouts(SESSION_TIMEOUT, HEARTBEAT_INTERVAL));
        AgentConfig config = AgentConfig.defaults()
                .withAdvertised("127.0.0.1", port)
                .withFlush(Duration.ofMillis(5), 1024 * 1024)
                .withDefaultPartitions(3);
        agent = Agent.start(config, AgentMetadata.of(metadata), objects, meters, Clock.systemUTC(), groups);
        server = KafkaServer.start(KafkaServerConfig.defaults().withListener("127.0.0.1", port), agent);
    }

    void createTopic(String name, int partitions) {
        agent.topics().create(new NewTopic(name, partitions, Map.of()), false);
    }

    Agent agent() {
        return agent;
    }

    SimpleMeterRegistry meters() {
        return meters;
    }

    String bootstrap() {
        return "127.0.0.1:" + server.port();
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() {
        agent.groups().close();
        server.close();
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
