package io.floe.kafka;

import java.util.Objects;

/**
 * How the Kafka listener binds and what it bounds.
 *
 * @param bindHost the one interface to listen on (for example {@code 127.0.0.1} or {@code 0.0.0.0})
 * @param port the port to listen on; 0 picks a free one ({@link KafkaServer#port()} tells which)
 * @param maxFrameBytes largest request frame accepted, as Kafka's {@code socket.request.max.bytes};
 *     a larger frame is answered with an error and its connection closed
 * @param maxInFlightPerConnection requests of one connection that may await their answer; past it the
 *     server stops reading that connection until answers go out
 * @param blockingThreads threads for work that blocks on the metadata store (admin APIs, offsets,
 *     producer ids); their queue holds at most {@code blockingThreads * }{@value #BLOCKING_QUEUE_PER_THREAD}
 *     tasks
 */
public record KafkaServerConfig(
        String bindHost, int port, int maxFrameBytes, int maxInFlightPerConnection, int blockingThreads) {

    /** Kafka's default {@code socket.request.max.bytes}: 100 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024;

    public static final int DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION = 100;
    public static final int DEFAULT_BLOCKING_THREADS = 8;
    /** Queued blocking tasks allowed per blocking thread before new ones are refused. */
    public static final int BLOCKING_QUEUE_PER_THREAD = 256;

    public KafkaServerConfig {
        Objects.requireNonNull(bindHost, "bindHost");
        require(port >= 0 && port < 65536, "port out of range: " + port);
        require(maxFrameBytes >= 1024, "max frame bytes must be >= 1024, got " + maxFrameBytes);
        require(
                maxInFlightPerConnection >= 1,
                "max in-flight requests per connection must be >= 1, got " + maxInFlightPerConnection);
        require(blockingThreads >= 1, "blocking threads must be >= 1, got " + blockingThreads);
    }

    /** 127.0.0.1:9092, 100 MiB frames, 100 requests in flight per connection, 8 blocking threads. */
    public static KafkaServerConfig defaults() {
        return new KafkaServerConfig(
                "127.0.0.1",
                9092,
                DEFAULT_MAX_FRAME_BYTES,
                DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION,
                DEFAULT_BLOCKING_THREADS);
    }

    public KafkaServerConfig withListener(String host, int newPort) {
        return new KafkaServerConfig(host, newPort, maxFrameBytes, maxInFlightPerConnection, blockingThreads);
    }

    public KafkaServerConfig withMaxFrameBytes(int bytes) {
        return new KafkaServerConfig(bindHost, port, bytes, maxInFlightPerConnection, blockingThreads);
    }

    public KafkaServerConfig withMaxInFlightPerConnection(int requests) {
        return new KafkaServerConfig(bindHost, port, maxFrameBytes, requests, blockingThreads);
    }

    int blockingQueueCapacity() {
        return blockingThreads * BLOCKING_QUEUE_PER_THREAD;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
