package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.UpsertRounds.Change;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ByteBuffers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upsert table whose key index is bounded ({@code floe.tableflow.upsert.index.max.keys}): a table
 * over the bound finds its rounds' rows by reading the key column of the files that may hold them, one
 * within it keeps every key in memory, and a table moves between the two as it grows and shrinks,
 * through compactions and a takeover by another agent, and still holds exactly the newest row of every
 * key. A lookup reads only the files whose key bounds and Bloom filters admit a round's keys.
 */
@Timeout(300)
class UpsertKeyBoundIT {

    private static final String INDEX_KEYS = "floe.tableflow.upsert.index.keys";
    private static final String LOOKUPS = "floe.tableflow.upsert.lookups";
    private static final String FILES_READ = "floe.tableflow.upsert.lookup.files.read";
    private static final String BUILDS = "floe.tableflow.upsert.index.builds";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir);
    }

    @AfterEach
    void stop() throws Exception {
        floe.close();
    }

    /**
     * 24 keys over two partitions, a bound of 14: rounds of updates and tombstones move the table's live
     * keys above and below the bound, each round replaces many rows, so compactions follow, and another
     * agent takes over halfway. After every round: the newest row of every key, and never an index of
     * more keys than the bound.
     */
    @Test
    void aTableMovesBetweenTheIndexAndLookupsAndKeepsTheNewestRowOfEveryKey() {
        int bound = 14;
        UpsertRounds rounds = new UpsertRounds(
                floe, dataDir.resolve("spool"), 2, Map.of("floe.tableflow.upsert.index.max.keys", "" + bound));
        Random random = new Random(19);
        Set<String> modes = new HashSet<>();
        double lookups = 0;
        double builds = 0;
        for (int round = 0; round < 16; round++) {
            if (round == 8) {
                lookups += rounds.meter(LOOKUPS);
                builds += rounds.meter(BUILDS);
                rounds.restart();
            }
            // The first rounds grow the table past the bound, the middle ones shrink it, the last grow it again.
            double tombstones = round < 4 ? 0.05 : round < 10 ? 0.6 : 0.1;
            for (int partition = 0; partition < 2; partition++) {
                List<Change> changes = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    String key = "p" + partition + "-k" + random.nextInt(12);
                    Long balance = random.nextDouble() < tombstones ? null : (long) random.nextInt(1_000_000);
                    changes.add(new Change(key, balance));
                }
                rounds.produce(partition, changes);
            }
            rounds.pollUntilCaughtUp();
            rounds.assertNewestRowOfEveryKey();
            double held = rounds.meter(INDEX_KEYS);
            assertThat(held).as("keys held in memory").isLessThanOrEqualTo(bound);
            modes.add(held > 0 ? "index" : rounds.liveKeys() > 0 ? "lookup" : "empty");
        }
        lookups += rounds.meter(LOOKUPS);
        builds += rounds.meter(BUILDS);
        assertThat(modes).as("ways the rounds found rows").contains("index", "lookup");
        assertThat(lookups).as("rounds that looked keys up").isPositive();
        assertThat(builds).as("index builds").isPositive();
        assertCompactionsDroppedDeletionVectorsAndKeptEveryRow(rounds.table());
    }

    /**
     * One partition, bound 0 (every round looks its keys up), no maintenance (the files stay as written):
     * rounds of new keys outside every file's key bounds and inside one file's bounds read no file; a
     * round that updates keys of one file (its smallest among them) reads that file alone, and so does a
     * round whose one key is the file's greatest.
     */
    @Test
    void aLookupReadsOnlyTheFilesThatMayHoldTheRoundsKeys() {
        UpsertRounds rounds = new UpsertRounds(
                floe,
                dataDir.resolve("spool"),
                1,
                Map.of(
                        "floe.tableflow.upsert.index.max.keys", "0",
                        "floe.tableflow.maintenance.enabled", "false"));
        double filesRead = 0;
        List<List<Change>> batches = List.of(
                changes("a", 0, 100, 1), // the table's first file: a000..a099
                changes("c", 0, 100, 2), // outside it
                changes("b", 0, 100, 3), // between the two files
                changes("a", 0, 100, 4).stream() // inside a000..a099, not a key of it: a000x..a099x
                        .map(change -> new Change(change.key() + "x", change.balance()))
                        .toList(),
                List.of(new Change("a000", 5L), new Change("a042", null)),
                List.of(new Change("a099", 6L))); // the first file's greatest key, alone
        List<Double> read = new ArrayList<>();
        for (List<Change> batch : batches) {
            rounds.produce(0, batch);
            rounds.pollUntilCaughtUp();
            rounds.assertNewestRowOfEveryKey();
            read.add(rounds.meter(FILES_READ) - filesRead);
            filesRead = rounds.meter(FILES_READ);
        }
        assertThat(read).as("files each round read to find its keys").containsExactly(0.0, 0.0, 0.0, 0.0, 1.0, 1.0);
        assertThat(rounds.meter(INDEX_KEYS)).isZero();
    }

    private static List<Change> changes(String prefix, int from, int to, long balance) {
        return IntStream.range(from, to)
                .mapToObj(i -> new Change(String.format("%s%03d", prefix, i), balance))
                .toList();
    }

    /**
     * Every compaction in the table's history: it removed the deletion vector of every data file it
     * rewrote, its snapshot has no deletion vector of a file it does not hold and none on a file the
     * compaction wrote, and it holds the same rows, column by column, as the snapshot before it. At least
     * one compaction removed deletion vectors.
     */
    static void assertCompactionsDroppedDeletionVectorsAndKeptEveryRow(Table table) {
        long removedVectors = 0;
        for (Snapshot snapshot : table.snapshots()) {
            if (!snapshot.summary().containsKey("floe.compacted-at") || snapshot.parentId() == null) {
                continue;
            }
            Map<String, DeleteFile> before = vectorsByDataFile(table, snapshot.parentId());
            Map<String, DeleteFile> after = vectorsByDataFile(table, snapshot.snapshotId());
            Set<String> removed = new HashSet<>();
            SnapshotChanges.builderFor(table)
                    .snapshot(snapshot)
                    .build()
                    .removedDeleteFiles()
                    .forEach(file -> removed.add(file.location()));
            for (Map.Entry<String, DeleteFile> file : before.entrySet()) {
                if (!after.containsKey(file.getKey()) && file.getValue() != null) {
                    removedVectors++;
                    assertThat(removed)
                            .as(
                                    "deletion vector of %s, rewritten by compaction %s",
                                    file.getKey(), snapshot.snapshotId())
                            .contains(file.getValue().location());
                }
            }
            assertThat(liveDeleteFiles(table, snapshot))
                    .as("data files the deletion vectors of compaction %s refer to", snapshot.snapshotId())
                    .allSatisfy(vector -> assertThat(after).containsKey(vector.referencedDataFile()));
            after.forEach((file, vector) -> {
                if (!before.containsKey(file)) {
                    assertThat(vector)
                            .as("deletion vector of %s, written by compaction", file)
                            .isNull();
                }
            });
            assertThat(rows(table, snapshot.snapshotId()))
                    .as("rows of compaction %s and of the snapshot before it", snapshot.snapshotId())
                    .containsExactlyInAnyOrderElementsOf(rows(table, snapshot.parentId()));
        }
        assertThat(removedVectors)
                .as("deletion vectors removed with their data files by compactions")
                .isPositive();
    }

    /** The delete files a snapshot's delete manifests hold, whether or not a data file of it has them. */
    private static List<DeleteFile> liveDeleteFiles(Table table, Snapshot snapshot) {
        List<DeleteFile> files = new ArrayList<>();
        for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
            try (ManifestReader<DeleteFile> reader =
                    ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
                reader.forEach(file -> files.add(file.copy()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /** Each data file of a snapshot, with its deletion vector or null. */
    private static Map<String, DeleteFile> vectorsByDataFile(Table table, long snapshotId) {
        Map<String, DeleteFile> files = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshotId).planFiles()) {
            for (FileScanTask task : tasks) {
                assertThat(task.deletes())
                        .as("delete files of %s", task.file().location())
                        .hasSizeLessThan(2);
                files.put(
                        task.file().location(),
                        task.deletes().isEmpty() ? null : task.deletes().get(0));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /**
     * Every column of every live row of a snapshot, as text (binary columns in hex); not the row position
     * a read with deletes adds.
     */
    private static List<String> rows(Table table, long snapshotId) {
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
            records.forEach(record -> rows.add(table.schema().columns().stream()
                    .map(column -> text(record.getField(column.name())))
                    .collect(Collectors.joining(", "))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private static String text(Object value) {
        if (value instanceof Record record) {
            return IntStream.range(0, record.size())
                    .mapToObj(i -> text(record.get(i)))
                    .collect(Collectors.joining(", ", "{", "}"));
        }
        if (value instanceof List<?> list) {
            return list.stream().map(UpsertKeyBoundIT::text).collect(Collectors.joining(", ", "[", "]"));
        }
        if (value instanceof ByteBuffer bytes) {
            return HexFormat.of().formatHex(ByteBuffers.toByteArray(bytes));
        }
        return String.valueOf(value);
    }
}
