package io.floe.tableflow.changes.stream;

import io.floe.core.metadata.LogRetention;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.topic.Topic;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.config.ChangesTopic;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.table.CommitFollower;
import io.floe.tableflow.table.TableCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change topics of the tables this agent holds: after each round of a table that names a change
 * topic ({@code floe.tableflow.changes.topic}), its {@link ChangeStream} publishes what the table
 * committed; a table whose lease comes or goes has its producer dropped, so the next holder starts from
 * the progress Kafka committed and fences any earlier one. A stream that goes (its table or change topic
 * turned off) gives its retention hold up. Called on the Tableflow thread.
 */
public final class ChangeStreams implements CommitFollower, AutoCloseable {

    /** The transactional id of a table's change producers and the group of its progress: this and the topic. */
    public static final String GROUP_PREFIX = "floe-tableflow-changes-";

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeStreams.class);

    private final ChangeStreamConfig config;
    private final ChangeQueries queries;
    private final TableCatalog tables;
    private final LogRetention retention;
    private final StreamLink link;
    private final Clock clock;
    private final MeterRegistry meters;
    private final Map<String, ChangeStream> streams = new HashMap<>();
    /** Kept when a stream goes: a gauge registers once per topic. */
    private final Map<String, StreamMetrics> metrics = new HashMap<>();
    /** Kept while the lease comes and goes, so how long a stream has been stuck survives it; gone with the stream. */
    private final Map<String, StreamHold> holds = new HashMap<>();
    /** Topics without a change topic whose stream hold this agent has released since it last had a stream. */
    private final Set<String> released = new HashSet<>();

    public ChangeStreams(
            ChangeStreamConfig config,
            ChangeQueries queries,
            TableCatalog tables,
            LogRetention retention,
            Clock clock,
            MeterRegistry meters) {
        this(config, queries, tables, retention, new KafkaLink(config), clock, meters);
    }

    ChangeStreams(
            ChangeStreamConfig config,
            ChangeQueries queries,
            TableCatalog tables,
            LogRetention retention,
            StreamLink link,
            Clock clock,
            MeterRegistry meters) {
        this.config = config;
        this.queries = queries;
        this.tables = tables;
        this.retention = retention;
        this.link = link;
        this.clock = clock;
        this.meters = meters;
    }

    /**
     * The consumer groups that hold the progress of a change topic that exists (its table on, a change topic
     * named): their offsets must never expire, however long the stream goes without a commit (the agent's
     * offset expiry asks, {@code GroupCoordinator#retainOffsetsOf}). Reads the topic's configs; never throws.
     */
    public static Predicate<String> progressGroups(TopicMetadata topics) {
        return group -> {
            if (!group.startsWith(GROUP_PREFIX)) {
                return false;
            }
            try {
                return topics.topic(group.substring(GROUP_PREFIX.length()))
                        .map(ChangeStreams::publishes)
                        .orElse(false);
            } catch (RuntimeException e) {
                LOGGER.warn(
                        "cannot tell whether group={} holds a change topic's progress; keeping it: {}",
                        group,
                        e.toString());
                return true;
            }
        };
    }

    private static boolean publishes(Topic topic) {
        if (!"true".equalsIgnoreCase(topic.configs().get(TableflowConfigs.ENABLED))) {
            return false;
        }
        try {
            return ChangesTopic.from(topic.configs()).isPresent();
        } catch (IllegalArgumentException invalid) {
            return true; // refused when set; whatever it was, its progress stays
        }
    }

    /**
     * Publishes what the topic's table committed; {@code committed} is not relied on (a round whose commit's
     * answer was lost reports none, though the commit may have applied): the stream compares the table's
     * snapshot with what it published.
     */
    @Override
    public synchronized boolean follow(Topic topic, boolean committed) {
        Optional<ChangesTopic> target;
        try {
            target = ChangesTopic.from(topic.configs());
        } catch (IllegalArgumentException e) {
            return false; // the topic's settings were refused when set; TableJobs reports invalid ones
        }
        if (target.isEmpty()) {
            if (released.add(topic.name())) {
                removed(topic.name());
            }
            return false;
        }
        released.remove(topic.name());
        try {
            return streams.computeIfAbsent(topic.name(), this::stream).publish(topic, target.get());
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

    @Override
    public synchronized void removed(String topic) {
        ChangeStream stream = streams.remove(topic);
        holds.remove(topic);
        try {
            if (stream != null) {
                stream.remove();
            } else {
                retention.releaseRetention(StreamHold.HOLDER, topic);
            }
        } catch (RuntimeException e) {
            released.remove(topic); // tried again on the next round
            LOGGER.warn("cannot release the change stream's retention hold of topic={}: {}", topic, e.toString());
        }
    }

    private ChangeStream stream(String topic) {
        StreamMetrics streamMetrics = metrics.computeIfAbsent(topic, name -> new StreamMetrics(meters, name));
        StreamHold hold = holds.computeIfAbsent(
                topic, name -> new StreamHold(retention, name, config.holdTimeout(), streamMetrics));
        return new ChangeStream(topic, config, queries, tables, link, hold, streamMetrics, clock);
    }

    @Override
    public synchronized void close() {
        streams.values().forEach(ChangeStream::close);
        streams.clear();
        link.close();
    }
}
