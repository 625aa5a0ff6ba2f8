package io.floe.tableflow.changes;

import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.topic.Topic;
import io.floe.tableflow.changes.ChangeQueryException.Reason;
import io.floe.tableflow.config.TableMode;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.rows.ValueDecoder;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans and runs change queries on Tableflow's tables: resolves the two points against the table's
 * commits, checks that the table and the log still hold what the answer needs, and returns a query that
 * streams the changes in order. Thread-safe; a query holds no lock.
 *
 * <p>A later consumer that walks a table commit by commit (a change topic) plans one query per pair of
 * consecutive {@link #commitOffsets}, from one snapshot to the next.
 */
public final class ChangeQueries {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeQueries.class);

    private final TableCatalog tables;
    private final TopicMetadata topics;
    private final LogReads reads;
    private final CommittedLog log;
    private final ChangeLimits limits;
    private final Clock clock;
    private final MeterRegistry meters;

    public ChangeQueries(
            TableCatalog tables,
            TopicMetadata topics,
            LogReads reads,
            CommittedLog log,
            ChangeLimits limits,
            Clock clock,
            MeterRegistry meters) {
        this.tables = tables;
        this.topics = topics;
        this.reads = reads;
        this.log = log;
        this.limits = limits;
        this.clock = clock;
        this.meters = meters;
    }

    /**
     * The commits of the topic's table still in it, oldest first, with the position each holds the topic
     * up to: where a walk over the table's commits (the change topic) cuts its ranges.
     */
    public List<CommitOffsets> commitOffsets(String topicName) {
        Table table = table(topicName);
        return history(topicName, table).entries().stream()
                .map(entry -> new CommitOffsets(entry.commit(), entry.watermark()))
                .toList();
    }

    /**
     * Plans the {@code kind} query of the topic's table from {@code from} to {@code to}; {@link
     * ChangeQueryException} when it cannot be answered, with a message saying what can be.
     */
    public ChangeQuery plan(String topicName, Point from, Point to, ChangeKind kind) {
        try {
            return planned(topicName, from, to, kind);
        } catch (ChangeQueryException e) {
            count(kind, "refused");
            throw e;
        } catch (RuntimeException e) {
            count(kind, "failed");
            throw e;
        }
    }

    private ChangeQuery planned(String topicName, Point fromPoint, Point toPoint, ChangeKind kind) {
        Table table = table(topicName);
        TableHistory history = history(topicName, table);
        Offsets from = history.resolve(fromPoint);
        Offsets to = history.resolve(toPoint);
        if (!from.atMost(to)) {
            throw new ChangeQueryException(
                    Reason.INVALID,
                    "the start " + fromPoint + " (offsets " + from + ") is after the end " + toPoint + " (offsets " + to
                            + ") in some partition");
        }
        long snapshotId = history.current().snapshotId();
        Run run;
        if (TableCatalog.modeOf(table) == TableMode.APPEND) {
            AppendChanges rows =
                    new AppendChanges(table, snapshotId, Segments.of(history, from, to), limits.rowsPerSlice());
            run = rows::run;
        } else {
            run = upsert(topicName, table, history, from, to, kind);
        }
        String name = name(topicName);
        return new Planned(
                name, kind, from, to, snapshotId, table.schema(), sink -> measured(name, kind, from, to, run, sink));
    }

    /** An upsert table's query: replayed from the base snapshot, which the log must still reach. */
    private Run upsert(String topicName, Table table, TableHistory history, Offsets from, Offsets to, ChangeKind kind) {
        Topic topic = topics.topic(topicName)
                .orElseThrow(() -> new ChangeQueryException(
                        Reason.NOT_FOUND,
                        "topic " + topicName + " was deleted: the changes of its upsert table " + name(topicName)
                                + " are replayed from the topic's log"));
        Optional<TableHistory.Entry> base = history.base(from);
        Offsets start = base.map(TableHistory.Entry::watermark)
                .orElse(Offsets.START)
                .covering(to.next().keySet());
        LogRanges ranges = new LogRanges(topicName, log, reads, limits.logBytesPerRead());
        for (int partition : to.next().keySet()) {
            ranges.checkHeld(
                    partition, start.get(partition), to.get(partition), () -> oldestAnswerable(history, ranges));
        }
        CommitDecoders decoders = new CommitDecoders(
                table,
                name(topicName),
                table.schema(),
                () -> currentDecoder(topic),
                new DeadLetterOffsets(() -> tables.loadDeadLetters(topicName), name(topicName), limits.keysMax()));
        UpsertChanges changes = new UpsertChanges(
                table,
                name(topicName),
                base,
                from,
                Segments.of(history, start, to),
                ranges,
                decoders,
                limits.keysMax());
        return switch (kind) {
            case FULL -> changes::run;
            case APPEND ->
                sink -> {
                    long[] inserts = {0};
                    changes.run(change -> {
                        if (change.op() == Op.INSERT) {
                            sink.accept(change);
                            inserts[0]++;
                        }
                    });
                    return inserts[0];
                };
            case MIN ->
                sink -> {
                    NetChanges net = new NetChanges();
                    changes.run(net);
                    return net.finish(sink);
                };
        };
    }

    /** The decoder of the topic's settings now: for the records of commits that recorded none. */
    private static ValueDecoder currentDecoder(Topic topic) {
        try {
            return ValueDecoder.of(TableSettings.from(topic.configs()));
        } catch (IllegalArgumentException e) {
            throw new ChangeQueryException(
                    Reason.INVALID,
                    "the Tableflow settings of topic " + topic.name() + " are invalid: " + e.getMessage());
        }
    }

    /** Advice for a query whose log range is gone: the oldest commit whose replay the log still holds. */
    private static String oldestAnswerable(TableHistory history, LogRanges ranges) {
        Map<Integer, Long> logStarts = new HashMap<>();
        for (TableHistory.Entry entry : history.entries()) {
            boolean held = entry.watermark().next().entrySet().stream()
                    .allMatch(next -> next.getValue() >= logStarts.computeIfAbsent(next.getKey(), ranges::logStart));
            if (held) {
                return "the oldest point this table can answer from is " + entry;
            }
        }
        return "no point of this table can be answered until it materializes past the log start";
    }

    private Table table(String topicName) {
        try {
            return tables.load(topicName)
                    .orElseThrow(() -> new ChangeQueryException(
                            Reason.NOT_FOUND,
                            "topic " + topicName + " has no table " + tables.identifier(topicName)
                                    + " (is Tableflow enabled for it? floe tables list)"));
        } catch (IllegalArgumentException e) {
            throw new ChangeQueryException(Reason.INVALID, "invalid table name " + topicName + ": " + e.getMessage());
        }
    }

    private TableHistory history(String topicName, Table table) {
        UUID topicId = topics.topic(topicName)
                .map(Topic::id)
                .or(() -> Watermark.of(table).map(Watermark::topicId))
                .orElse(null);
        TableHistory history = topicId == null ? null : TableHistory.of(table, name(topicName), topicId);
        if (history == null || history.isEmpty()) {
            throw new ChangeQueryException(
                    Reason.INVALID, "table " + name(topicName) + " has no commit of topic " + topicName + " yet");
        }
        return history;
    }

    private String name(String topicName) {
        return tables.identifier(topicName).toString();
    }

    private void count(ChangeKind kind, String outcome) {
        meters.counter("floe.tableflow.changes.queries", "kind", kind.text(), "outcome", outcome)
                .increment();
    }

    /** How a planned query produces its changes. */
    @FunctionalInterface
    private interface Run {
        long run(ChangeSink sink) throws IOException;
    }

    /** Runs {@code run} into {@code sink}, counting and logging its outcome. */
    private long measured(String table, ChangeKind kind, Offsets from, Offsets to, Run run, ChangeSink sink)
            throws IOException {
        long startedMs = clock.millis();
        String outcome = "failed";
        try {
            long changes = run.run(sink);
            outcome = "answered";
            meters.counter("floe.tableflow.changes.emitted", "kind", kind.text())
                    .increment(changes);
            LOGGER.info(
                    "change query answered table={} kind={} from={} to={} changes={} ms={}",
                    table,
                    kind.text(),
                    from,
                    to,
                    changes,
                    clock.millis() - startedMs);
            return changes;
        } catch (ChangeQueryException e) {
            outcome = "refused";
            throw e;
        } finally {
            count(kind, outcome);
        }
    }

    private record Planned(
            String table, ChangeKind kind, Offsets from, Offsets to, long snapshotId, Schema rowSchema, Run changes)
            implements ChangeQuery {
        @Override
        public long run(ChangeSink sink) throws IOException {
            return changes.run(sink);
        }
    }
}
