package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.LocalObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.UpsertKey;
import io.floe.tableflow.rows.UpsertRecords;
import io.floe.tableflow.rows.ValueDecoder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key index after a round's commit ({@link KeyLocator#afterCommit}): it moves to the new snapshot
 * only when the commit is known to have made it, on top of the index's snapshot; after a rejected commit
 * or one of unknown outcome it is dropped, so no round ever takes a key's row from a commit that did not
 * apply (its next round would hide a position of a file the table never had, and fail for ever) and no
 * row of a commit that did apply is missed.
 */
class KeyLocatorTest {

    private static final String TOPIC = "accounts";
    private static final long MAX_KEYS = 1000;
    private static final UUID TOPIC_ID = UUID.fromString("00000000-0000-0000-0000-000000000027");
    private static final Map<String, String> CONFIGS = Map.of(
            "floe.tableflow.enabled",
            "true",
            "floe.tableflow.mode",
            "upsert",
            "floe.tableflow.format",
            "json",
            "floe.tableflow.schema",
            "{\"type\": \"object\", \"properties\": {\"balance\": {\"type\": \"integer\"}}, \"required\":"
                    + " [\"balance\"]}");

    @TempDir
    Path dir;

    private LocalObjectStore objects;
    private TableCatalog tables;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TableMetrics metrics = new TableMetrics(meters, TOPIC);
    private KeyLocator locator;
    private UpsertKey key;
    private long offset;
    private Watermark mark = Watermark.empty(TOPIC_ID);

    /** How the next commit ends, as the catalog's swap and its answer go. */
    private enum Ending {
        COMMITTED,
        REJECTED,
        UNKNOWN_NOT_APPLIED,
        UNKNOWN_APPLIED
    }

    @BeforeEach
    void open() {
        objects = new LocalObjectStore(dir.resolve("objects"));
        ObjectLocations locations =
                new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
        tables = new TableCatalog(
                IcebergCatalogs.jdbc(
                        "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath(),
                        null,
                        null,
                        locations.root() + "/tables",
                        new ObjectStoreFileIO(objects, locations, dir.resolve("spool"))),
                "floe");
        TableSettings settings = TableSettings.from(CONFIGS);
        Table table = tables.loadOrCreate(
                TOPIC, Rows.tableSchema(ValueDecoder.of(settings).valueType(), settings.upsertKeyColumns()), settings);
        key = new UpsertRecords(table.schema(), ValueDecoder.of(settings)).key();
        locator = new KeyLocator(Clock.systemUTC(), metrics, new KeyIndexBudget(64L << 20, meters), TOPIC);
    }

    @AfterEach
    void close() throws Exception {
        tables.close();
        objects.close();
    }

    @Test
    void aKnownCommitMovesTheIndexAlongWithoutABuild() {
        round(Map.of("a", 1L, "b", 2L), Ending.COMMITTED);
        round(Map.of("a", 3L, "c", 4L), Ending.COMMITTED);
        long built = builds();

        assertThat(round(Map.of("b", 5L), Ending.COMMITTED)).isInstanceOf(SnapshotCommit.Outcome.Committed.class);
        assertThat(builds()).as("moved along, not built again").isEqualTo(built);
        assertThat(locator.index()).isNotNull();
        assertThat(locator.index().snapshotId())
                .isEqualTo(table().currentSnapshot().snapshotId());
        assertThat(balances()).isEqualTo(Map.of("a", 3L, "b", 5L, "c", 4L));
    }

    @Test
    void aRejectedCommitDropsTheIndexAndTheNextRoundReadsTheTable() {
        round(Map.of("a", 1L, "b", 2L), Ending.COMMITTED);
        assertThat(round(Map.of("a", 5L, "c", 6L), Ending.REJECTED))
                .isInstanceOf(SnapshotCommit.Outcome.Rejected.class);
        assertThat(locator.index()).as("dropped").isNull();

        assertThat(round(Map.of("a", 7L, "c", 8L), Ending.COMMITTED))
                .as("the round after: its deletes are of rows the table has")
                .isInstanceOf(SnapshotCommit.Outcome.Committed.class);
        assertThat(balances()).isEqualTo(Map.of("a", 7L, "b", 2L, "c", 8L));
    }

    @Test
    void aCommitOfUnknownOutcomeThatDidNotApplyDropsTheIndex() {
        round(Map.of("a", 1L, "b", 2L), Ending.COMMITTED);
        assertThat(round(Map.of("a", 5L, "c", 6L), Ending.UNKNOWN_NOT_APPLIED))
                .isInstanceOf(SnapshotCommit.Outcome.Unknown.class);
        assertThat(locator.index()).as("dropped").isNull();

        assertThat(round(Map.of("a", 7L, "c", 8L), Ending.COMMITTED))
                .isInstanceOf(SnapshotCommit.Outcome.Committed.class);
        assertThat(balances()).isEqualTo(Map.of("a", 7L, "b", 2L, "c", 8L));
    }

    @Test
    void aCommitOfUnknownOutcomeThatAppliedDropsTheIndexAndTheNextRoundBuildsItFromTheTable() {
        round(Map.of("a", 1L, "b", 2L), Ending.COMMITTED);
        assertThat(round(Map.of("a", 5L, "c", 6L), Ending.UNKNOWN_APPLIED))
                .isInstanceOf(SnapshotCommit.Outcome.Unknown.class);
        assertThat(locator.index()).as("dropped").isNull();
        long before = builds();

        assertThat(round(Map.of("c", 9L), Ending.COMMITTED)).isInstanceOf(SnapshotCommit.Outcome.Committed.class);
        assertThat(builds()).as("built again from the table").isEqualTo(before + 1);
        assertThat(balances()).isEqualTo(Map.of("a", 5L, "b", 2L, "c", 9L));
    }

    /**
     * One round of {@code changes} as the job runs it: prepare the index, write against it, commit through
     * a pinned table whose swap ends as {@code ending} says, then tell the locator.
     */
    private SnapshotCommit.Outcome round(Map<String, Long> changes, Ending ending) {
        Table pinned = PinnedTable.pin(faulty(table(), ending));
        locator.prepare(pinned, key, MAX_KEYS);
        UpsertRound round = new UpsertRound();
        Map<Integer, Long> advanced = new LinkedHashMap<>();
        for (Map.Entry<String, Long> change : new TreeMap<>(changes).entrySet()) {
            GenericRecord row = GenericRecord.create(pinned.schema());
            row.setField(Rows.PARTITION, 0);
            row.setField(Rows.OFFSET, offset);
            row.setField(Rows.TIMESTAMP, Instant.ofEpochMilli(offset).atOffset(ZoneOffset.UTC));
            ByteBuffer rowKey = ByteBuffer.wrap(change.getKey().getBytes(StandardCharsets.UTF_8));
            row.setField(Rows.KEY, rowKey);
            row.setField("balance", change.getValue());
            round.apply(new UpsertRecords.Change(rowKey, row));
            offset++;
        }
        advanced.put(0, offset);
        Watermark target = mark.with(advanced);
        UpsertRound.Written written =
                round.write(pinned, locator.rowsOf(pinned, key, round.keys()), 1L << 20, System.currentTimeMillis());
        SnapshotCommit.Outcome outcome = SnapshotCommit.rowDelta(
                pinned, written, target, RecordDecoding.of(TableSettings.from(CONFIGS)), Clock.systemUTC());
        locator.afterCommit(pinned, written, target, outcome instanceof SnapshotCommit.Outcome.Committed, MAX_KEYS);
        if (outcome instanceof SnapshotCommit.Outcome.Committed || ending == Ending.UNKNOWN_APPLIED) {
            mark = target;
        } else {
            offset -= changes.size(); // as the next round would read them again
        }
        return outcome;
    }

    private Table table() {
        return tables.load(TOPIC).orElseThrow();
    }

    /** {@code table} whose next commit ends as {@code ending} says. */
    private static Table faulty(Table table, Ending ending) {
        TableOperations ops = ((HasTableOperations) table).operations();
        return new BaseTable(
                new ForwardingTableOperations(ops) {
                    @Override
                    public void commit(TableMetadata base, TableMetadata updated) {
                        switch (ending) {
                            case COMMITTED -> delegate.commit(base, updated);
                            case REJECTED -> throw new CommitFailedException("injected: another writer won");
                            case UNKNOWN_NOT_APPLIED ->
                                throw new CommitStateUnknownException(new RuntimeException("injected: no answer"));
                            case UNKNOWN_APPLIED -> {
                                delegate.commit(base, updated);
                                throw new CommitStateUnknownException(new RuntimeException("injected: answer lost"));
                            }
                        }
                    }
                },
                table.name());
    }

    private long builds() {
        return (long) meters.find("floe.tableflow.upsert.index.builds")
                .tag("topic", TOPIC)
                .counter()
                .count();
    }

    /** The balance of each key's row, failing on a key's second row. */
    private Map<String, Long> balances() {
        Map<String, Long> balances = new TreeMap<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table()).build()) {
            for (Record row : rows) {
                String rowKey = StandardCharsets.UTF_8
                        .decode(((ByteBuffer) row.getField(Rows.KEY)).duplicate())
                        .toString();
                assertThat(balances.put(rowKey, (Long) row.getField("balance")))
                        .as("a second row of key %s", rowKey)
                        .isNull();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return balances;
    }
}
