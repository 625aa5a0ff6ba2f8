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
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's change topic on the agent that holds the table's lease. Each {@link #publish} walks the
 * table's commits from the stream's progress: one Kafka transaction per range (an upsert table's next
 * commit; at most {@link ChangeStreamConfig#offsetsPerTransaction} offsets of an append table's), holding
 * the range's FULL changes (a delete followed by a tombstone of its key) and the group offsets that move
 * the progress to the range's end. The progress is read from the group after the producer's
 * {@code initTransactions}, which fences every earlier producer of the table and aborts what it left
 * open, and is trusted in memory only while this producer's transactions commit: any failure closes the
 * producer, and the next turn starts over from what Kafka says was committed. Not thread-safe: the
 * Tableflow thread drives it.
 */
final class ChangeStream {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeStream.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final String topic;
    private final String id;
    private final ChangeStreamConfig config;
    private final ChangeQueries queries;
    private final TableCatalog tables;
    private final KafkaLink kafka;
    private final StreamMetrics metrics;
    private final Clock clock;

    private Producer<byte[], byte[]> producer;
    private ConsumerGroupMetadata group;
    /** Null until read from the group after the producer's initialization. */
    private Progress progress;
    /** The change topic known to have a partition for each of the source topic's, and how many. */
    private String sized;

    private int sizedPartitions;
    private boolean caughtUp;
    /** The last problem logged, so one that lasts is logged once. */
    private String reported;

    ChangeStream(
            String topic,
            ChangeStreamConfig config,
            ChangeQueries queries,
            TableCatalog tables,
            KafkaLink kafka,
            StreamMetrics metrics,
            Clock clock) {
        this.topic = topic;
        this.id = idOf(topic);
        this.config = config;
        this.queries = queries;
        this.tables = tables;
        this.kafka = kafka;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** The transactional id of the stream's producers and the name of its consumer group. */
    static String idOf(String topic) {
        return "floe-tableflow-changes-" + topic;
    }

    /**
     * Publishes what the table committed beyond the progress to {@code target}, at most {@link
     * ChangeStreamConfig#transactionsPerTurn} transactions; returns whether more is waiting. A stream
     * known to be caught up does nothing until a round commits. Never throws.
     */
    boolean publish(Topic source, ChangesTopic target, boolean committed) {
        if (caughtUp && !committed) {
            return false;
        }
        if (target.name().equals(source.name())) {
            halt("topic " + topic + " names itself as its change topic; set " + "floe.tableflow.changes.topic to"
                    + " another topic");
            return false;
        }
        if (!kafka.ready()) {
            return false; // the agent's listener starts after Tableflow
        }
        caughtUp = false;
        try {
            open();
            for (int i = 0; i < config.transactionsPerTurn(); i++) {
                if (!step(source, target)) {
                    caughtUp = true;
                    return false;
                }
            }
            return true;
        } catch (StreamHalted e) {
            halt(e.getMessage());
            close();
        } catch (RuntimeException e) {
            if (fenced(e)) {
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
        }
        return false;
    }

    /**
     * One transaction of the walk; false when the change topic has every commit of the table (or is ahead
     * of it, after an operator moved it).
     */
    private boolean step(Topic source, ChangesTopic target) {
        Optional<Table> loaded = tables.load(topic);
        if (loaded.isEmpty() || loaded.get().currentSnapshot() == null) {
            return false;
        }
        Table table = loaded.get();
        List<CommitOffsets> commits;
        try {
            commits = queries.commitOffsets(topic);
        } catch (ChangeQueryException noCommitYet) {
            return false;
        }
        if (progress == null) {
            progress = Progress.of(kafka.committedOffsets(id), topic, source.id(), target.name());
            LOGGER.info(
                    "change topic resumes topic={} changeTopic={} from={} fresh={}",
                    topic,
                    target.name(),
                    progress.next(),
                    progress.fresh());
        }
        Offsets current = commits.get(commits.size() - 1).watermark();
        Offsets at = over(progress.next(), current.next().keySet());
        lag(commits, at, current);
        if (!at.atMost(current)) {
            report("change topic of topic " + topic + " is at offsets " + at + ", beyond its table's " + current
                    + ": waiting for the table (the stream's group offsets were moved ahead)");
            return false;
        }
        CommitOffsets next = commits.stream()
                .filter(commit -> !commit.watermark().atMost(at))
                .findFirst()
                .orElse(null);
        if (next == null) {
            metrics.halted(false);
            reported = null;
            return false;
        }
        boolean append = TableCatalog.modeOf(table) == TableMode.APPEND;
        Offsets end = over(next.watermark(), current.next().keySet());
        Offsets to = append ? limited(at, end, config.offsetsPerTransaction()) : end;
        sizeTopic(source, target, !append);
        try {
            ChangeQuery query = queries.plan(topic, new Point.AtOffsets(at), new Point.AtOffsets(to), ChangeKind.FULL);
            publishRange(source, target, table, query, next.commit());
        } catch (ChangeQueryException e) {
            if (e.reason() == ChangeQueryException.Reason.GONE && progress.fresh() && !append) {
                LOGGER.info(
                        "the history of upsert table topic={} is not whole ({}); its change topic starts with a"
                                + " snapshot of the current rows",
                        topic,
                        e.getMessage());
                publishSnapshot(source, target, table);
                return true;
            }
            throw new StreamHalted("the changes of topic " + topic + " from offsets " + at + " to " + to
                    + " cannot be published: " + e.getMessage() + ". The change topic " + target.name()
                    + " stops here. To go on, move the stream: `floe groups delete " + id + "` restarts it with"
                    + " a snapshot of the table's current rows; `floe groups reset-offsets " + id + " --topic "
                    + topic + " ...` skips to the offsets given (the changes in between are never published)");
        }
        return true;
    }

    /** One transaction: the query's changes and the progress at its end. */
    private void publishRange(Topic source, ChangesTopic target, Table table, ChangeQuery query, Commit commit) {
        long startedMs = clock.millis();
        DebeziumEnvelope envelope =
                new DebeziumEnvelope(origin(), query.rowSchema().asStruct());
        ChangeKey keys = new ChangeKey(query.rowSchema());
        long[] changes = {0};
        inTransaction(target, source, query.to(), commit.snapshotId(), () -> {
            query.run(change -> {
                byte[] key = keys.kafkaKey(change);
                send(target, change.partition(), key, envelope.change(change, clock.millis()));
                if (change.op() == Op.DELETE) {
                    send(target, change.partition(), key, null); // Debezium's tombstone: the key can be compacted away
                }
                changes[0]++;
            });
        });
        metrics.committed(changes[0]);
        LOGGER.info(
                "published changes topic={} changeTopic={} changes={} from={} to={} snapshot={} ms={}",
                topic,
                target.name(),
                changes[0],
                query.from(),
                query.to(),
                commit.snapshotId(),
                clock.millis() - startedMs);
        progress = new Progress(query.to(), false);
        metrics.halted(false);
        reported = null;
    }

    /**
     * One transaction: an {@code r} event for every row of the table's current snapshot, a {@code d} event
     * and a tombstone for every row the change topic already holds (from before a gap, or of an earlier
     * topic of this name) whose key the table no longer has, and the progress at the snapshot's
     * watermark. Taken when the stream starts on an upsert table whose history is no longer whole, so a
     * consumer that replays the change topic from its start still ends with the table's rows.
     */
    private void publishSnapshot(Topic source, ChangesTopic target, Table table) {
        long startedMs = clock.millis();
        Snapshot snapshot = table.currentSnapshot();
        Watermark mark = Watermark.of(table)
                .orElseThrow(() -> new IllegalStateException("table of topic " + topic + " has no watermark"));
        Offsets to = Offsets.of(mark.nextOffsets());
        Commit commit = new Commit(snapshot.snapshotId(), Instant.ofEpochMilli(snapshot.timestampMillis()));
        Schema schema = table.schema();
        DebeziumEnvelope envelope = new DebeziumEnvelope(origin(), schema.asStruct());
        ChangeKey keys = new ChangeKey(schema);
        Map<ByteBuffer, KafkaLink.Published> stale = kafka.publishedRows(target.name());
        long[] rows = {0};
        inTransaction(target, source, to, snapshot.snapshotId(), () -> {
            try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                    .useSnapshot(snapshot.snapshotId())
                    .project(schema)
                    .build()) {
                for (Record row : records) {
                    int partition = (Integer) row.getField(Rows.PARTITION);
                    long offset = (Long) row.getField(Rows.OFFSET);
                    long timestampMs = ((OffsetDateTime) row.getField(Rows.TIMESTAMP))
                            .toInstant()
                            .toEpochMilli();
                    byte[] key = keys.kafkaKey(row);
                    send(
                            target,
                            partition,
                            key,
                            envelope.read(row, commit, partition, offset, timestampMs, clock.millis()));
                    if (key != null) {
                        stale.remove(ByteBuffer.wrap(key));
                    }
                    rows[0]++;
                }
            }
            for (Map.Entry<ByteBuffer, KafkaLink.Published> gone : stale.entrySet()) {
                int partition = gone.getValue().partition();
                byte[] key = ByteBuffers.toByteArray(gone.getKey());
                send(
                        target,
                        partition,
                        key,
                        envelope.deleteOf(gone.getValue().afterJson(), commit, partition, clock.millis()));
                send(target, partition, key, null);
            }
        });
        metrics.snapshot();
        metrics.committed(rows[0] + stale.size());
        LOGGER.info(
                "published snapshot topic={} changeTopic={} rows={} deletedSinceLastPublished={} snapshot={} to={} ms={}",
                topic,
                target.name(),
                rows[0],
                stale.size(),
                snapshot.snapshotId(),
                to,
                clock.millis() - startedMs);
        progress = new Progress(to, false);
    }

    /** What a transaction sends before its offsets. */
    @FunctionalInterface
    private interface Body {
        void run() throws IOException;
    }

    /**
     * Sends {@code body}'s records and the group offsets at {@code to} in one transaction and commits it;
     * aborts it when anything fails (a fenced producer cannot abort: its transaction is another's to end).
     */
    private void inTransaction(ChangesTopic target, Topic source, Offsets to, long snapshotId, Body body) {
        producer.beginTransaction();
        try {
            body.run();
            producer.sendOffsetsToTransaction(
                    Progress.offsets(topic, source.id(), target.name(), to, snapshotId), group);
            producer.commitTransaction();
        } catch (IOException e) {
            abort(e);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            abort(e);
            throw e;
        }
    }

    private void abort(Exception cause) {
        if (fenced(cause)) {
            return;
        }
        try {
            producer.abortTransaction();
            metrics.transaction("aborted");
        } catch (KafkaException e) {
            cause.addSuppressed(e);
        }
    }

    private void send(ChangesTopic target, int partition, byte[] key, byte[] value) {
        producer.send(new ProducerRecord<>(target.name(), partition, null, key, value));
    }

    /** Makes sure the change topic exists with a partition for each of the source topic's. */
    private void sizeTopic(Topic source, ChangesTopic target, boolean compacted) {
        if (target.name().equals(sized) && sizedPartitions >= source.partitionCount()) {
            return;
        }
        sizedPartitions = kafka.ensureTopic(target.name(), source.partitionCount(), compacted);
        sized = target.name();
    }

    private void open() {
        if (producer != null) {
            return;
        }
        Producer<byte[], byte[]> opened = kafka.producer(id);
        try {
            opened.initTransactions();
        } catch (RuntimeException e) {
            opened.close(Duration.ZERO);
            throw e;
        }
        producer = opened;
        progress = null;
        if (group == null) {
            group = kafka.groupMetadata(id);
        }
    }

    /** Forgets what this agent knew: the next turn initializes a producer and reads the progress again. */
    void reset() {
        close();
        caughtUp = false;
    }

    void close() {
        if (producer != null) {
            try {
                producer.close(CLOSE_TIMEOUT);
            } catch (RuntimeException e) {
                LOGGER.debug("closing the change producer of topic={} failed: {}", topic, e.toString());
            }
            producer = null;
        }
        progress = null;
        sized = null;
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

    private void lag(List<CommitOffsets> commits, Offsets at, Offsets current) {
        long behind = commits.stream()
                .map(CommitOffsets::watermark)
                .distinct()
                .filter(watermark -> !watermark.atMost(at))
                .count();
        long offsets = 0;
        for (var entry : current.next().entrySet()) {
            offsets += Math.max(0, entry.getValue() - at.get(entry.getKey()));
        }
        metrics.lag(behind, offsets);
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

    /** Whether {@code failure} says another producer of the transactional id took over. */
    private static boolean fenced(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException) {
                return true;
            }
            for (Throwable suppressed : cause.getSuppressed()) {
                if (fenced(suppressed)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A range the stream needs that cannot be answered: the stream stops until an operator moves it. */
    private static final class StreamHalted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StreamHalted(String message) {
            super(message);
        }
    }
}
