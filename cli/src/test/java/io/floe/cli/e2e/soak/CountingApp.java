package io.floe.cli.e2e.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The soak's Kafka Streams application, {@code exactly_once_v2} at its defaults (commit interval
 * 100 ms, a 10 s transaction timeout): per input key, a count and the sequence number of the last
 * record counted, kept in a state store whose changelog is compact-only, and emitted as
 * {@code count:sequence} to the output for every record read (the store's cache is off). The input is
 * consumed where it lies, so the changelog's partition {@code p} holds the keys of the input's
 * partition {@code p}. Several instances in this JVM, one stream thread each, share the work as
 * separate members of the group; a stream thread that dies is replaced and its exception recorded.
 */
final class CountingApp implements AutoCloseable {

    static final String APPLICATION = "soak-counts";
    static final String STORE = "counts";
    static final String CHANGELOG = APPLICATION + "-" + STORE + "-changelog";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final List<KafkaStreams> instances = new ArrayList<>();
    private final Queue<String> threadDeaths = new ConcurrentLinkedQueue<>();

    /**
     * Starts {@code count} instances reading {@code input} and writing {@code output}; the changelog
     * gets {@code changelogConfig}; {@code mark} records state changes and thread deaths in the timeline.
     */
    CountingApp(
            int count,
            String bootstrap,
            Path stateDir,
            String input,
            String output,
            Map<String, String> changelogConfig,
            Consumer<String> mark) {
        Topology topology = topology(input, output, changelogConfig);
        for (int i = 1; i <= count; i++) {
            String name = "instance-" + i;
            KafkaStreams streams = new KafkaStreams(topology, config(bootstrap, stateDir.resolve(name)));
            streams.setStateListener((now, before) -> mark.accept(name + " " + before + " -> " + now));
            streams.setUncaughtExceptionHandler(exception -> {
                String death = name + ": " + exception;
                threadDeaths.add(death);
                mark.accept("stream thread of " + death + " (replaced)");
                return StreamThreadExceptionResponse.REPLACE_THREAD;
            });
            instances.add(streams);
        }
    }

    void start() {
        instances.forEach(KafkaStreams::start);
    }

    /** Each instance's state, in order. */
    List<KafkaStreams.State> states() {
        return instances.stream().map(KafkaStreams::state).toList();
    }

    /** Exceptions that killed a stream thread, with the instance's name. */
    List<String> threadDeaths() {
        return List.copyOf(threadDeaths);
    }

    static Topology topology(String input, String output, Map<String, String> changelogConfig) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .aggregate(
                        () -> "0:0",
                        (key, sequence, counted) -> (count(counted) + 1) + ":" + sequence,
                        Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(STORE)
                                .withKeySerde(Serdes.String())
                                .withValueSerde(Serdes.String())
                                .withCachingDisabled()
                                .withLoggingEnabled(changelogConfig))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    static long count(String counted) {
        return Long.parseLong(counted.substring(0, counted.indexOf(':')));
    }

    private static Properties config(String bootstrap, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        // No cache: every record read yields one update, the one the check expects.
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return props;
    }

    @Override
    public void close() {
        // close() without a timeout waits forever for a thread stuck on an unreachable coordinator.
        instances.forEach(streams -> streams.close(CLOSE_TIMEOUT));
    }
}
