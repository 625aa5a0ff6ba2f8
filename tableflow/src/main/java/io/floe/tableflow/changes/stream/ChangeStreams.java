package io.floe.tableflow.changes.stream;

import io.floe.core.topic.Topic;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.config.ChangesTopic;
import io.floe.tableflow.table.CommitFollower;
import io.floe.tableflow.table.TableCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change topics of the tables this agent holds: after each round of a table that names a change
 * topic ({@code floe.tableflow.changes.topic}), its {@link ChangeStream} publishes what the table
 * committed; a table whose lease comes or goes has its producer dropped, so the next holder starts from
 * the progress Kafka committed and fences any earlier one. Called on the Tableflow thread.
 */
public final class ChangeStreams implements CommitFollower, AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeStreams.class);

    private final ChangeStreamConfig config;
    private final ChangeQueries queries;
    private final TableCatalog tables;
    private final KafkaLink kafka;
    private final Clock clock;
    private final MeterRegistry meters;
    private final Map<String, ChangeStream> streams = new HashMap<>();
    /** Kept when a stream goes: a gauge registers once per topic. */
    private final Map<String, StreamMetrics> metrics = new HashMap<>();

    public ChangeStreams(
            ChangeStreamConfig config, ChangeQueries queries, TableCatalog tables, Clock clock, MeterRegistry meters) {
        this.config = config;
        this.queries = queries;
        this.tables = tables;
        this.kafka = new KafkaLink(config);
        this.clock = clock;
        this.meters = meters;
    }

    @Override
    public synchronized boolean follow(Topic topic, boolean committed) {
        Optional<ChangesTopic> target;
        try {
            target = ChangesTopic.from(topic.configs());
        } catch (IllegalArgumentException e) {
            return false; // the topic's settings were refused when set; TableJobs reports invalid ones
        }
        if (target.isEmpty()) {
            released(topic.name());
            return false;
        }
        try {
            return streams.computeIfAbsent(topic.name(), this::stream).publish(topic, target.get(), committed);
        } catch (RuntimeException e) {
            LOGGER.warn("change topic of topic={} failed: {}", topic.name(), e.toString(), e);
            return false;
        }
    }

    @Override
    public synchronized void leaseTaken(String topic) {
        ChangeStream stream = streams.get(topic);
        if (stream != null) {
            stream.reset();
        }
    }

    @Override
    public synchronized void released(String topic) {
        ChangeStream stream = streams.remove(topic);
        if (stream != null) {
            stream.close();
        }
    }

    private ChangeStream stream(String topic) {
        StreamMetrics streamMetrics = metrics.computeIfAbsent(topic, name -> new StreamMetrics(meters, name));
        return new ChangeStream(topic, config, queries, tables, kafka, streamMetrics, clock);
    }

    @Override
    public synchronized void close() {
        streams.values().forEach(ChangeStream::close);
        streams.clear();
        kafka.close();
    }
}
