package io.floe.kafka;

import io.floe.agent.Agent;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.concurrency.Threads;
import io.floe.kafka.api.ApiRegistry;
import io.floe.kafka.network.Listener;
import io.floe.kafka.network.NetworkMetrics;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka protocol server of one agent: a listener on the configured address, the Kafka APIs over
 * the agent, and the bounded executor that runs their blocking work (metadata-store reads and
 * writes), so event loops never wait on a store.
 *
 * <p>Closing stops accepting connections, lets open connections finish the requests they have (for
 * at most {@link #CLOSE_GRACE}), closes them and stops the threads. It leaves the agent running: the
 * caller closes the agent after the server.
 */
public final class KafkaServer implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaServer.class);

    /** How long {@link #close()} waits for in-flight requests, including long-poll fetches. */
    public static final Duration CLOSE_GRACE = Duration.ofSeconds(10);

    private final KafkaServerConfig config;
    private final ThreadPoolExecutor blocking;
    private final Listener listener;
    private final AtomicBoolean closed = new AtomicBoolean();

    private KafkaServer(KafkaServerConfig config, ThreadPoolExecutor blocking, Listener listener) {
        this.config = config;
        this.blocking = blocking;
        this.listener = listener;
    }

    /** Binds the listener and starts serving {@code agent}; throws if the address cannot be bound. */
    public static KafkaServer start(KafkaServerConfig config, Agent agent) {
        ThreadPoolExecutor blocking = new ThreadPoolExecutor(
                config.blockingThreads(),
                config.blockingThreads(),
                60,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.blockingQueueCapacity()),
                Threads.daemon("floe-kafka-blocking"));
        blocking.allowCoreThreadTimeOut(true);
        BoundPort bound = new BoundPort();
        ApiRegistry registry = ApiRegistry.standard(
                agent,
                () -> "PLAINTEXT://" + config.bindHost() + ":" + bound.port,
                Concurrency.threads().random());
        try {
            Listener listener = Listener.bind(
                    config.bindHost(),
                    config.port(),
                    config.maxFrameBytes(),
                    config.maxInFlightPerConnection(),
                    registry,
                    blocking,
                    new NetworkMetrics(agent.meters()));
            bound.port = listener.address().getPort();
            LOGGER.info(
                    "Kafka server started host={} port={} nodeId={} advertised={}:{}",
                    config.bindHost(),
                    bound.port,
                    agent.config().nodeId(),
                    agent.config().advertisedHost(),
                    agent.config().advertisedPort());
            return new KafkaServer(config, blocking, listener);
        } catch (RuntimeException e) {
            blocking.shutdownNow();
            throw e;
        }
    }

    /** The port the listener is bound to (the chosen one when the config asked for port 0). */
    public int port() {
        return listener.address().getPort();
    }

    public String host() {
        return config.bindHost();
    }

    /** Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        listener.close(CLOSE_GRACE);
        blocking.shutdown();
        try {
            if (!blocking.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                LOGGER.warn("Blocking Kafka work still running after {}; interrupting it", CLOSE_GRACE);
                blocking.shutdownNow();
            }
        } catch (InterruptedException e) {
            blocking.shutdownNow();
            Thread.currentThread().interrupt();
        }
        LOGGER.info("Kafka server stopped port={}", port());
    }

    /** The listener's port once bound, for the configs that name it. */
    private static final class BoundPort {
        volatile int port;
    }
}
