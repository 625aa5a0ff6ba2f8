package io.floe.tableflow.changes.stream;

import io.floe.core.topic.Topic;
import io.floe.tableflow.changes.ChangeKey;
import io.floe.tableflow.changes.ChangeKind;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.changes.ChangeQuery;
import io.floe.tableflow.changes.ChangeQueryException;
import io.floe.tableflow.changes.Commit;
import io.floe.tableflow.changes.CommitOffsets;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.changes.Op;
import io.floe.tableflow.changes.Point;
import io.floe.tableflow.config.ChangesTopic;
import io.floe.tableflow.config.TableMode;
import io.floe.tableflow.table.TableCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's change topic on the agent that holds the table's lease. Each {@link #publish} compares
 * the table's current snapshot with the one the stream last found itself caught up with, and when they
 * differ walks the table's commits from the stream's progress: one Kafka transaction per range (an
 * upsert table's next commit; at most {@link ChangeStreamConfig#offsetsPerTransaction} offsets of an
 * append table's, or of a step of an initial snapshot, {@link SnapshotSteps}), holding the range's FULL
 * changes (a delete followed by a tombstone of its key) and the group offsets that move the progress to
 * the range's end. The progress is read after the producer's initialization, which fences every earlier
 * producer of the table and ends what it left open: from the group, or, when the group has none, from
 * the change topic's last records ({@link TopicTail}); it is trusted in memory only while this
 * producer's transactions commit: any failure closes the producer, and the next turn starts over from
 * what Kafka says was committed. Not thread-safe: the Tableflow thread drives it.
 */
final class ChangeStream {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeStream.class);

    private final String topic;
    private final String id;
    private final ChangeStreamConfig config;
    private final ChangeQueries queries;
    private final TableCatalog tables;
    private final StreamLink link;
    private final StreamMetrics metrics;
    private final StreamHold hold;
    private final SnapshotSteps snapshots;
    private final Clock clock;

    private StreamLink.Transactions producer;
    /** Null until read after the producer's initialization. */
    private Progress progress;
    /** The change topic known to have a partition for each of the source topic's, and how many. */
    private String sized;

    private int sizedPartitions;
    /** The table snapshot the stream last found itself caught up with; null when not known. */
    private Long seen;
    /** When this producer last committed; null when it has not yet. */
    private Instant committedAt;
    /** Whether the current turn committed a transaction. */
    private boolean moved;
    /** The last problem logged, so one that lasts is logged once. */
    private String reported;

    ChangeStream(
            String topic,
            ChangeStreamConfig config,
            ChangeQueries queries,
            TableCatalog tables,
            StreamLink link,
            StreamHold hold,
            StreamMetrics metrics,
            Clock clock) {
        this.topic = topic;
        this.id = idOf(topic);
        this.config = config;
        this.queries = queries;
        this.tables = tables;
        this.link = link;
        this.hold = hold;
        this.metrics = metrics;
        this.clock = clock;
        this.snapshots = new SnapshotSteps(topic, config.offsetsPerTransaction(), link, metrics, clock);
    }

    /** The transactional id of the stream's producers and the name of its consumer group. */
    static String idOf(String topic) {
        return ChangeStreams.GROUP_PREFIX + topic;
    }

    /**
     * Publishes what the table committed beyond the progress to {@code target}, at most {@link
     * ChangeStreamConfig#transactionsPerTurn} transactions; returns whether more is waiting. Does nothing
     * while the table's current snapshot is the one the stream last found itself caught up with (and no
     * keep-alive is due). Never throws.
     */
    boolean publish(Topic source, ChangesTopic target) {
        if (target.name().equals(source.name())) {
            halt("topic " + topic + " names itself as its change topic; set " + "floe.tableflow.changes.topic to"
                    + " another topic");
            return false;
        }
        moved = false;
        boolean caughtUp = false;
        Offsets at = null;
        try {
            Optional<Table> table = tables.load(topic);
            if (table.isEmpty() || table.get().currentSnapshot() == null) {
                caughtUp = true; // nothing committed, nothing to publish
                return false;
            }
            if (Long.valueOf(table.get().currentSnapshot().snapshotId()).equals(seen) && !keepAliveDue()) {
                caughtUp = true;
                return false;
            }
            if (!link.ready()) {
                return false; // the agent's listener starts after Tableflow
            }
            open(source, target);
            at = progress.next();
            for (int i = 0; i < config.transactionsPerTurn(); i++) {
                Long upTo = step(source, target);
                if (upTo != null) {
                    caughtUp = true;
                    seen = upTo;
                    if (keepAliveDue()) {
                        keepAlive(source, target);
                    }
                    return false;
                }
            }
            return true;
        } catch (StreamHalted e) {
            halt(e.getMessage());
            close();
        } catch (RuntimeException e) {
            if (link.fenced(e)) {
                metrics.transaction("fenced");
                LOGGER.warn(
                        "change topic producer fenced topic={} transactionalId={}: another agent publishes the"
                                + " table's changes now",
                        topic,
                        id);
            } else {
                metrics.failed(e.getClass().getSimpleName());
                LOGGER.warn(
                        "publishing changes failed topic={} changeTopic={}: {}", topic, target.name(), e.toString());
            }
            close();
        } finally {
            if (caughtUp || moved) {
                hold.moving();
            } else {
                hold.stuck(clock.instant(), at);
            }
        }
        return false;
    }

    /**
     * One transaction of the walk; returns the table's snapshot when there was none to make because the
     * change topic has every commit of the table (or is ahead of it, after an operator moved it).
     */
    private Long step(Topic source, ChangesTopic target) {
        Optional<Table> loaded = tables.load(topic);
        if (loaded.isEmpty() || loaded.get().currentSnapshot() == null) {
            return -1L;
        }
        Table table = loaded.get();
        long current = table.currentSnapshot().snapshotId();
        if (progress.snapshotting()) {
            try {
                List<CommitOffsets> commits = queries.commitOffsets(topic);
                Offsets latest = commits.get(commits.size() - 1).watermark();
                metrics.lag(commits, over(progress.next(), latest.next().keySet()), latest);
            } catch (ChangeQueryException noCommitYet) {
                // only the gauges go without
            }
            sizeTopic(source, target, true);
            progress = snapshots.step(
                    table,
                    progress,
                    target.name(),
                    origin(),
                    (after, body) -> inTransaction(source, target, after, body));
            holdAfter(source, table);
            return null;
        }
        List<CommitOffsets> commits;
        try {
            commits = queries.commitOffsets(topic);
        } catch (ChangeQueryException noCommitYet) {
            return current;
        }
        Offsets latest = commits.get(commits.size() - 1).watermark();
        Offsets at = over(progress.next(), latest.next().keySet());
        metrics.lag(commits, at, latest);
        if (!at.atMost(latest)) {
            report("change topic of topic " + topic + " is at offsets " + at + ", beyond its table's " + latest
                    + ": waiting for the table (the stream's group offsets were moved ahead)");
            return current;
        }
        CommitOffsets next = commits.stream()
                .filter(commit -> !commit.watermark().atMost(at))
                .findFirst()
                .orElse(null);
        if (next == null) {
            metrics.halted(false);
            reported = null;
            return current;
        }
        boolean append = TableCatalog.modeOf(table) == TableMode.APPEND;
        Offsets end = over(next.watermark(), latest.next().keySet());
        Offsets to = append ? limited(at, end, config.offsetsPerTransaction()) : end;
        sizeTopic(source, target, !append);
        try {
            ChangeQuery query = queries.plan(topic, new Point.AtOffsets(at), new Point.AtOffsets(to), ChangeKind.FULL);
            publishRange(source, target, query, next.commit());
        } catch (ChangeQueryException e) {
            if (e.reason() == ChangeQueryException.Reason.GONE
                    && progress.origin() != Progress.Origin.STREAM
                    && !append) {
                LOGGER.info(
                        "the history of upsert table topic={} is not whole from {} ({}); its change topic goes on with"
                                + " a snapshot of the current rows",
                        topic,
                        at,
                        e.getMessage());
                progress = SnapshotSteps.start(table, progress);
                hold.before(StreamHold.needed(progress, source, table).orElseThrow());
                return null;
            }
            throw new StreamHalted("the changes of topic " + topic + " from offsets " + at + " to " + to
                    + " cannot be published: " + e.getMessage() + ". The change topic " + target.name()
                    + " stops here. To go on, move the stream: `floe groups reset-offsets " + id + " --topic " + topic
                    + " --to-offset 0 --execute` restarts it with a snapshot of the table's current rows (offsets"
                    + " set by hand that the table's history no longer reaches start a snapshot); `--to-offset N`"
                    + " (or --to-datetime, --to-latest) skips to the offsets given, and the changes in between are"
                    + " never published");
        }
        holdAfter(source, table);
        return null;
    }

    /** One transaction: the query's changes and the progress at its end. */
    private void publishRange(Topic source, ChangesTopic target, ChangeQuery query, Commit commit) {
        long startedMs = clock.millis();
        DebeziumEnvelope envelope =
                new DebeziumEnvelope(origin(), query.rowSchema().asStruct());
        ChangeKey keys = new ChangeKey(query.rowSchema());
        Progress after = progress.published(query.to(), commit.snapshotId());
        long changes = inTransaction(
                source,
                target,
                after,
                outbox -> query.run(change -> {
                    byte[] key = keys.kafkaKey(change);
                    outbox.send(change.partition(), key, envelope.change(change, clock.millis()));
                    if (change.op() == Op.DELETE) {
                        outbox.send(
                                change.partition(), key, null); // Debezium's tombstone: the key can be compacted away
                    }
                }));
        LOGGER.info(
                "published changes topic={} changeTopic={} changes={} from={} to={} snapshot={} ms={}",
                topic,
                target.name(),
                changes,
                query.from(),
                query.to(),
                commit.snapshotId(),
                clock.millis() - startedMs);
    }

    /**
     * Commits the progress again in a transaction that publishes nothing: the group's offsets and the
     * transactional id are written now, so neither ages towards its expiry while the stream lives.
     */
    private void keepAlive(Topic source, ChangesTopic target) {
        inTransaction(source, target, progress.renewed(), outbox -> {});
        LOGGER.debug("change topic kept alive topic={} progress={}", topic, progress.next());
    }

    /** Whether a caught-up stream should commit its progress again; never one that has none yet. */
    private boolean keepAliveDue() {
        if (progress != null && progress.fresh()) {
            return false;
        }
        return committedAt == null
                || !Duration.between(committedAt, clock.instant())
                        .minus(config.keepAlive())
                        .isNegative();
    }

    /**
     * Sends {@code body}'s records and the group offsets of {@code after} in one transaction, the last
     * record of each partition carrying {@code after} in its header, and commits it; aborts it when anything
     * fails (a fenced producer cannot abort: its transaction is another's to end). Returns the records sent.
     */
    private long inTransaction(Topic source, ChangesTopic target, Progress after, SnapshotSteps.Body body) {
        Outbox outbox = new Outbox(producer, target.name());
        producer.begin();
        try {
            body.send(outbox);
            outbox.flush(after.header(source.id(), target.name()));
            producer.commit(id, after.offsets(topic, source.id(), target.name()));
        } catch (IOException e) {
            abort(e);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            abort(e);
            throw e;
        }
        progress = after;
        committedAt = clock.instant();
        moved = true;
        metrics.halted(false);
        reported = null;
        metrics.committed(outbox.events());
        return outbox.events();
    }

    private void abort(Exception cause) {
        if (link.fenced(cause)) {
            return;
        }
        try {
            producer.abort();
            metrics.transaction("aborted");
        } catch (KafkaException e) {
            cause.addSuppressed(e);
        }
    }

    /** Moves the hold after a transaction committed; a failure only keeps it lower. */
    private void holdAfter(Topic source, Table table) {
        StreamHold.needed(progress, source, table).ifPresent(hold::after);
    }

    /** Makes sure the change topic exists with a partition for each of the source topic's. */
    private void sizeTopic(Topic source, ChangesTopic target, boolean compacted) {
        if (target.name().equals(sized) && sizedPartitions >= source.partitionCount()) {
            return;
        }
        sizedPartitions = link.ensureTopic(target.name(), source.partitionCount(), compacted);
        sized = target.name();
    }

    /** A producer, and the progress read after its initialization, with the log held from there. */
    private void open(Topic source, ChangesTopic target) {
        if (producer == null) {
            producer = link.transactions(id);
            progress = null;
            committedAt = null;
        }
        if (progress == null) {
            progress = StoredProgress.read(link, id, source, target, metrics);
            LOGGER.info(
                    "change topic resumes topic={} changeTopic={} from={} origin={} reading={}",
                    topic,
                    target.name(),
                    progress.next(),
                    progress.origin(),
                    progress.reading());
            Table table =
                    tables.load(topic).orElseThrow(() -> new IllegalStateException("table of " + topic + " is gone"));
            StreamHold.needed(progress, source, table).ifPresentOrElse(hold::before, hold::release);
        }
    }

    /** Forgets what this agent knew: the next turn initializes a producer and reads the progress again. */
    void reset() {
        close();
        hold.forget();
    }

    void close() {
        if (producer != null) {
            try {
                producer.close();
            } catch (RuntimeException e) {
                LOGGER.debug("closing the change producer of topic={} failed: {}", topic, e.toString());
            }
            producer = null;
        }
        progress = null;
        sized = null;
        seen = null;
    }

    /** The stream is gone (its table or change topic turned off): closed, and its hold released. */
    void remove() {
        close();
        hold.release();
    }

    private void halt(String message) {
        metrics.halted(true);
        if (!message.equals(reported)) {
            metrics.failed("halted");
            LOGGER.error("change topic halted topic={}: {}", topic, message);
            reported = message;
        }
    }

    private void report(String message) {
        if (!message.equals(reported)) {
            LOGGER.info("{}", message);
            reported = message;
        }
    }

    private DebeziumEnvelope.Origin origin() {
        TableIdentifier table = tables.identifier(topic);
        return new DebeziumEnvelope.Origin(
                config.version(), config.clusterName(), table.namespace().toString(), table.name(), topic);
    }

    /** {@code offsets} listing exactly {@code partitions} (0 where it lists none). */
    static Offsets over(Offsets offsets, Set<Integer> partitions) {
        TreeMap<Integer, Long> next = new TreeMap<>();
        partitions.forEach(partition -> next.put(partition, offsets.get(partition)));
        return new Offsets(next);
    }

    /** {@code end}, or a position before it that lies at most {@code offsetsMax} offsets past {@code at}. */
    static Offsets limited(Offsets at, Offsets end, long offsetsMax) {
        TreeMap<Integer, Long> next = new TreeMap<>();
        long room = offsetsMax;
        for (var entry : end.next().entrySet()) {
            long from = at.get(entry.getKey());
            long until = Math.min(entry.getValue(), from + room);
            room -= until - from;
            next.put(entry.getKey(), until);
        }
        return new Offsets(next);
    }
}
