package io.floe.kafka.group;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.core.concurrency.Threads;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.kafka.KafkaServerConfig;
import io.floe.kafka.api.ApiRegistry;
import io.floe.kafka.api.group.GroupApis;
import io.floe.kafka.network.Listener;
import io.floe.kafka.network.NetworkMetrics;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An agent on SQLite and a local object store with a Kafka listener on 127.0.0.1 that serves the
 * standard APIs, {@link GroupApis} among them. The group coordinator uses short timeouts so tests run
 * in seconds. {@link #restart()} stops everything but the data directory and starts again on the
 * same port.
 */
final class GroupServer implements AutoCloseable {

    static final GroupCoordinatorConfig GROUP_CONFIG = GroupCoordinatorConfig.defaults()
            .withInitialRebalanceDelay(Duration.ofMillis(200))
            .withMinSessionTimeout(Duration.ofMillis(500));

    private final Path dir;
    private final int port;
    private MetadataStore metadata;
    private ObjectStore objects;
    private Agent agent;
    private ExecutorService blocking;
    private Listener listener;
    private SimpleMeterRegistry meters;

    GroupServer(Path dir) {
        this.dir = dir;
        this.port = freePort();
        start();
    }

    private void start() {
        meters = new SimpleMeterRegistry();
        metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        objects = new LocalObjectStore(dir.resolve("objects"));
        AgentConfig config = AgentConfig.defaults()
                .withAdvertised("127.0.0.1", port)
                .withFlush(Duration.ofMillis(5), 1024 * 1024)
                .withDefaultPartitions(3);
        agent = Agent.start(config, AgentMetadata.of(metadata), objects, meters, Clock.systemUTC(), GROUP_CONFIG);
        blocking = Executors.newFixedThreadPool(8, Threads.daemon("test-blocking"));
        listener = Listener.bind(
                "127.0.0.1",
                port,
                KafkaServerConfig.DEFAULT_MAX_FRAME_BYTES,
                KafkaServerConfig.DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION,
                ApiRegistry.standard(agent, () -> "PLAINTEXT://127.0.0.1", new SplittableRandom()),
                blocking,
                new NetworkMetrics(meters));
    }

    void restart() {
        stop();
        start();
    }

    Agent agent() {
        return agent;
    }

    SimpleMeterRegistry meters() {
        return meters;
    }

    int port() {
        return port;
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    private void stop() {
        // Answer parked JoinGroup/SyncGroup requests first, so the listener need not wait for them.
        agent.groups().close();
        listener.close(Duration.ofSeconds(5));
        blocking.shutdown();
        try {
            blocking.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        agent.close();
        metadata.close();
        objects.close();
    }

    @Override
    public void close() {
        stop();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
