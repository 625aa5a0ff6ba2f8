package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.tableflow.CommitFaults.Fault;
import io.floe.tableflow.changes.ChangeKind;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.changes.ChangeQuery;
import io.floe.tableflow.changes.ChangeQueryException;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.changes.Point;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change queries of all three kinds on an upsert table of a keyed topic with inserts, updates, deletes
 * and dead letters, through many table commits, compactions, a restart of the table job and the agent
 * killed mid-round three ways (after its commit applied, before it, between the dead-letter and the row
 * commit; {@link CommitFaults#armKill}): every answer equals, line for line and in order, the changes
 * computed here from the produced records alone (with the before image's position in the log and the
 * commit of each change), for ranges between snapshots, commit times and offsets that fall between
 * commits, and ranges across each kill. Then what the table and log no longer hold is refused with what
 * to do.
 */
class ChangeQueriesIT {

    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final String TOPIC = "accounts";
    private static final String EVENTS = "events";
    private static final int PARTITIONS = 3;
    private static final int KEYS = 40;

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private CommitFaults faults;
    private Admin admin;
    private ChangeQueries changes;
    private final Random random = new Random(1919);
    private final ProducedLog produced = new ProducedLog();

    @BeforeEach
    void start() throws Exception {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog))
                .startTableflow(dataDir.resolve("spool"));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()));
        changes = floe.changeQueries();
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        floe.close();
    }

    @Test
    void upsertTableChangesAreExactlyWhatTheLogImplies() throws Exception {
        createTopic(TOPIC, "upsert");
        try (KafkaProducer<byte[], byte[]> producer = floe.producer()) {
            for (int round = 0; round < 5; round++) {
                produce(producer, TOPIC, 120, round == 0 ? 0.0 : 0.15);
                floe.awaitCaughtUp(TOPIC, CATCH_UP);
            }
            floe.restartTableflow(dataDir.resolve("spool"));
            produce(producer, TOPIC, 120, 0.2);
            floe.awaitCaughtUp(TOPIC, CATCH_UP);
            // The agent killed mid-round: after the commit applied, before it, between the dead letters and the rows.
            kills.add(killMidRound(producer, floe.tables.identifier(TOPIC), Fault.APPLIED_THEN_UNKNOWN));
            kills.add(killMidRound(producer, floe.tables.identifier(TOPIC), Fault.UNKNOWN_NOT_APPLIED));
            kills.add(killMidRound(producer, floe.tables.deadLetterIdentifier(TOPIC), Fault.APPLIED_THEN_UNKNOWN));
            for (int round = 0; round < 2; round++) {
                produce(producer, TOPIC, 120, 0.2);
                floe.awaitCaughtUp(TOPIC, CATCH_UP);
            }
        }
        Table table = floe.tables.load(TOPIC).orElseThrow();
        List<Map.Entry<Long, Watermark>> commits = ProducedLog.commits(table);
        assertThat(commits).as("several table commits").hasSizeGreaterThan(6);
        assertThat(TableflowHarness.snapshots(table))
                .as("a compaction among the commits")
                .anyMatch(snapshot -> snapshot.summary().containsKey("floe.compacted-at"));

        Offsets start = Offsets.START;
        Offsets end = offsets(commits.get(commits.size() - 1).getValue());
        Map.Entry<Long, Watermark> middle = commits.get(commits.size() / 2);
        Offsets atMiddle = offsets(middle.getValue());
        Offsets between = shifted(atMiddle, end, 7); // between two commits, not at one
        Offsets beforeEnd = shifted(offsets(commits.get(commits.size() - 2).getValue()), end, 3);

        assertAllKinds(table, new Point.Earliest(), new Point.Latest(), start, end);
        assertAllKinds(table, new Point.AtSnapshot(middle.getKey()), new Point.Latest(), atMiddle, end);
        assertAllKinds(table, new Point.AtOffsets(between), new Point.AtOffsets(beforeEnd), between, beforeEnd);
        Instant middleTime =
                Instant.ofEpochMilli(table.snapshot(middle.getKey()).timestampMillis());
        assertAllKinds(
                table,
                new Point.AtTime(middleTime),
                new Point.AtSnapshot(commits.get(commits.size() - 2).getKey()),
                atMiddle,
                offsets(commits.get(commits.size() - 2).getValue()));
        for (Kill kill : kills) {
            // From the table as the killed round found it, and from between its commit and the next one,
            // to between two commits of the new job.
            Offsets after = shifted(kill.caughtUp(), end, 5);
            assertAllKinds(table, new Point.AtOffsets(kill.before()), new Point.AtOffsets(after), kill.before(), after);
            Offsets inside = shifted(kill.before(), kill.caughtUp(), 9);
            assertAllKinds(table, new Point.AtOffsets(inside), new Point.Latest(), inside, end);
        }

        // Every kind of change is in the answer, and a dead letter is none.
        List<String> full = answer(new Point.Earliest(), new Point.Latest(), ChangeKind.FULL);
        assertThat(full)
                .anyMatch(line -> line.startsWith("c "))
                .anyMatch(line -> line.startsWith("u "))
                .anyMatch(line -> line.startsWith("d "));

        assertRefusals(table, end);
    }

    @Test
    void appendTableChangesAreItsRowsInTheRangeAndIcebergsIncrementalAppendScanAgrees() throws Exception {
        createTopic(EVENTS, "append");
        try (KafkaProducer<byte[], byte[]> producer = floe.producer()) {
            for (int round = 0; round < 5; round++) {
                produce(producer, EVENTS, 100, 0.0);
                floe.awaitCaughtUp(EVENTS, CATCH_UP);
            }
        }
        Table table = floe.tables.load(EVENTS).orElseThrow();
        List<Map.Entry<Long, Watermark>> commits = ProducedLog.commits(table);
        assertThat(TableflowHarness.snapshots(table))
                .as("a compaction among the commits")
                .anyMatch(snapshot -> snapshot.summary().containsKey("floe.compacted-at"));
        Offsets end = offsets(commits.get(commits.size() - 1).getValue());
        Map.Entry<Long, Watermark> middle = commits.get(commits.size() / 2);
        Offsets between = shifted(offsets(middle.getValue()), end, 11);
        for (ChangeKind kind : ChangeKind.values()) {
            assertThat(answer(EVENTS, new Point.Earliest(), new Point.Latest(), kind))
                    .as("%s from the start", kind)
                    .containsExactlyElementsOf(produced.appended(table, Offsets.START, end));
            assertThat(answer(EVENTS, new Point.AtOffsets(between), new Point.Latest(), kind))
                    .as("%s from offsets between commits", kind)
                    .containsExactlyElementsOf(produced.appended(table, between, end));
        }

        // Iceberg's own incremental append scan answers the same query between two snapshots.
        long from = middle.getKey();
        long to = commits.get(commits.size() - 1).getKey();
        List<String> engine = new ArrayList<>(
                        answer(EVENTS, new Point.AtSnapshot(from), new Point.AtSnapshot(to), ChangeKind.APPEND))
                .stream().map(line -> line.split(" ")[2]).sorted().toList();
        assertThat(engine).isNotEmpty().containsExactlyElementsOf(incrementalAppendScan(table, from, to));

        // The rows come from the table: a log that lost its head still answers.
        admin.deleteRecords(Map.of(new TopicPartition(EVENTS, 0), RecordsToDelete.beforeOffset(end.get(0))))
                .all()
                .get();
        assertThat(answer(EVENTS, new Point.Earliest(), new Point.Latest(), ChangeKind.FULL))
                .containsExactlyElementsOf(produced.appended(table, Offsets.START, end));
    }

    /** The table's position when a kill was armed, and once the new job caught up after it. */
    private record Kill(Offsets before, Offsets caughtUp) {}

    private final List<Kill> kills = new ArrayList<>();

    /**
     * Kills the agent at the next commit of a round of {@code target} ({@code fault} says whether the
     * swap applied), producing until a round with such a commit comes (one with dead letters, for the
     * dead-letter table), and starts Tableflow again with nothing in memory; returns once the new job
     * committed more records and caught up.
     */
    private Kill killMidRound(KafkaProducer<byte[], byte[]> producer, TableIdentifier target, Fault fault)
            throws Exception {
        Watermark before = Watermark.of(floe.tables.load(TOPIC).orElseThrow()).orElseThrow();
        faults.armKill(target, fault);
        CommitFaults.Fired kill = new CommitFaults.Fired(target, fault);
        for (int round = 0; !faults.fired().contains(kill); round++) {
            assertThat(round)
                    .as("rounds produced without a commit of %s", target)
                    .isLessThan(20);
            produce(producer, TOPIC, 40, 0.2);
            awaitCaughtUpOrKilled(kill);
        }
        Watermark atKill = Watermark.of(floe.tables.load(TOPIC).orElseThrow()).orElseThrow();
        floe.killTableflow(dataDir.resolve("spool"));
        produce(producer, TOPIC, 40, 0.2);
        floe.awaitCaughtUp(TOPIC, CATCH_UP);
        Watermark caughtUp = Watermark.of(floe.tables.load(TOPIC).orElseThrow()).orElseThrow();
        assertThat(caughtUp.nextOffsets())
                .as("the new job went on from the table")
                .isNotEqualTo(atKill.nextOffsets());
        if (target.equals(floe.tables.identifier(TOPIC))) {
            assertThat(atKill.nextOffsets().equals(before.nextOffsets()))
                    .as("the killed round's commit of the rows did not apply")
                    .isNotEqualTo(fault.applies);
        } else {
            Watermark deadLetters = Watermark.of(
                            floe.tables.loadDeadLetters(TOPIC).orElseThrow())
                    .orElseThrow();
            assertThat(deadLetters.nextOffsets())
                    .as("the killed round committed its dead letters, not its rows at %s", atKill.nextOffsets())
                    .isEqualTo(deadLetters.atLeast(atKill).nextOffsets())
                    .isNotEqualTo(atKill.nextOffsets());
        }
        return new Kill(offsets(before), offsets(caughtUp));
    }

    /** Waits until the table has every record produced so far or the kill happened. */
    private void awaitCaughtUpOrKilled(CommitFaults.Fired kill) throws InterruptedException {
        List<Long> ends = floe.stableEnds(TOPIC);
        Instant deadline = Instant.now().plus(CATCH_UP);
        while (!faults.fired().contains(kill)
                && !TableflowHarness.reaches(floe.tables.load(TOPIC).orElseThrow(), ends)) {
            assertThat(Instant.now()).as("caught up with %s or killed", ends).isBefore(deadline);
            Thread.sleep(20);
        }
    }

    /** The positions of the rows Iceberg's IncrementalAppendScan reads between two snapshots, sorted. */
    private static List<String> incrementalAppendScan(Table table, long fromExclusive, long to) throws IOException {
        List<String> positions = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newIncrementalAppendScan()
                .fromSnapshotExclusive(fromExclusive)
                .toSnapshot(to)
                .planFiles()) {
            for (FileScanTask task : tasks) {
                try (CloseableIterable<Record> rows = Parquet.read(
                                table.io().newInputFile(task.file().location()))
                        .project(table.schema())
                        .createReaderFunc(type -> GenericParquetReaders.buildReader(table.schema(), type))
                        .build()) {
                    rows.forEach(
                            row -> positions.add(row.getField("kafka_partition") + ":" + row.getField("kafka_offset")));
                }
            }
        }
        positions.sort(null);
        return positions;
    }

    /** Points the table does not have, and a base the log or the table no longer holds. */
    private void assertRefusals(Table table, Offsets end) throws Exception {
        Offsets beyond = shifted(end, new Offsets(new TreeMap<>(Map.of(0, end.get(0) + 10))), 5);
        assertThatThrownBy(() -> changes.plan(TOPIC, new Point.AtOffsets(beyond), new Point.Latest(), ChangeKind.FULL))
                .isInstanceOf(ChangeQueryException.class)
                .hasMessageContaining("is beyond table floe.accounts, which holds offsets " + end);
        assertThatThrownBy(() -> changes.plan(
                        TOPIC,
                        new Point.AtTime(Instant.parse("2000-01-01T00:00:00Z")),
                        new Point.Latest(),
                        ChangeKind.MIN))
                .isInstanceOf(ChangeQueryException.class)
                .hasMessageContaining("is before the oldest snapshot of table floe.accounts; it has snapshot");
        assertThatThrownBy(() -> changes.plan(TOPIC, new Point.Latest(), new Point.Earliest(), ChangeKind.FULL))
                .hasMessageContaining("is after the end earliest");

        // DeleteRecords moves partition 1's log start past the start of the table.
        long logStart = end.get(1) / 2;
        admin.deleteRecords(Map.of(new TopicPartition(TOPIC, 1), RecordsToDelete.beforeOffset(logStart)))
                .all()
                .get();
        assertThatThrownBy(() -> changes.plan(TOPIC, new Point.Earliest(), new Point.Latest(), ChangeKind.FULL))
                .isInstanceOf(ChangeQueryException.class)
                .satisfies(e ->
                        assertThat(((ChangeQueryException) e).reason()).isEqualTo(ChangeQueryException.Reason.GONE))
                .hasMessageContaining("partition 1 of topic accounts no longer holds offsets [0, " + logStart + ")")
                .hasMessageContaining("its first offset still available is " + logStart)
                .hasMessageContaining("the oldest point this table can answer from is snapshot");

        // Snapshot expiry takes the base of an early start away.
        long keep = ProducedLog.commits(table).get(3).getKey();
        table.expireSnapshots()
                .expireOlderThan(table.snapshot(keep).timestampMillis())
                .retainLast(1)
                .commit();
        assertThatThrownBy(() -> changes.plan(TOPIC, new Point.Earliest(), new Point.Latest(), ChangeKind.FULL))
                .isInstanceOf(ChangeQueryException.class)
                .hasMessageContaining("no longer has a snapshot at or before offsets")
                .hasMessageContaining("query from snapshot " + keep);
    }

    private void assertAllKinds(Table table, Point from, Point to, Offsets fromOffsets, Offsets toOffsets)
            throws IOException {
        assertThat(answer(from, to, ChangeKind.FULL))
                .as("full delta from %s to %s", from, to)
                .isNotEmpty()
                .containsExactlyElementsOf(produced.full(table, fromOffsets, toOffsets));
        assertThat(answer(from, to, ChangeKind.MIN))
                .as("min delta from %s to %s", from, to)
                .containsExactlyElementsOf(produced.min(table, fromOffsets, toOffsets));
        assertThat(answer(from, to, ChangeKind.APPEND))
                .as("inserts from %s to %s", from, to)
                .containsExactlyElementsOf(produced.inserts(table, fromOffsets, toOffsets));
    }

    private List<String> answer(Point from, Point to, ChangeKind kind) throws IOException {
        return answer(TOPIC, from, to, kind);
    }

    private List<String> answer(String topic, Point from, Point to, ChangeKind kind) throws IOException {
        ChangeQuery query = changes.plan(topic, from, to, kind);
        List<String> lines = new ArrayList<>();
        long count = query.run(change -> lines.add(ProducedLog.render(change)));
        assertThat(count).isEqualTo(lines.size());
        return lines;
    }

    private void createTopic(String name, String mode) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, PARTITIONS, (short) 1).configs(ProducedLog.tableConfigs(mode))))
                .all()
                .get();
    }

    private void produce(KafkaProducer<byte[], byte[]> producer, String topic, int count, double tombstones)
            throws Exception {
        produced.produce(producer, topic, random, KEYS, count, tombstones, true);
    }

    private static Offsets offsets(Watermark mark) {
        return Offsets.of(mark.nextOffsets());
    }

    /** {@code from} moved {@code by} offsets forward in each partition, but not past {@code limit}. */
    private static Offsets shifted(Offsets from, Offsets limit, long by) {
        TreeMap<Integer, Long> next = new TreeMap<>();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            next.put(partition, Math.min(limit.get(partition), from.get(partition) + by));
        }
        return new Offsets(next);
    }
}
