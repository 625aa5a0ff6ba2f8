package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.LocalObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table job's commits fenced by its lease epoch: once a newer holder claimed the table, a writer of an
 * older epoch commits nothing, whether it read the table before the claim (the catalog's compare-and-set
 * refuses it) or after (the fence refuses it, also when Iceberg refreshes and applies the commit again).
 */
class LeaseFenceTest {

    private static final TableIdentifier ID = TableIdentifier.of("floe", "t");
    private static final String LEASE = "tableflow/t";

    @TempDir
    Path dir;

    private LocalObjectStore objects;
    private Catalog catalog;

    @BeforeEach
    void open() {
        objects = new LocalObjectStore(dir.resolve("objects"));
        ObjectLocations locations =
                new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
        catalog = IcebergCatalogs.jdbc(
                "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath(),
                null,
                null,
                locations.root() + "/tables",
                new ObjectStoreFileIO(objects, locations, dir.resolve("spool")));
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("floe"));
        // Iceberg's own retries on: a refreshed, re-applied commit must meet the fence as well.
        Map<String, String> properties = new HashMap<>(TableCatalog.TABLE_PROPERTIES);
        properties.put(TableProperties.COMMIT_NUM_RETRIES, "3");
        properties.put(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "1");
        properties.put(TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "1");
        catalog.buildTable(ID, new Schema(Types.NestedField.required(1, "x", Types.LongType.get())))
                .withProperties(properties)
                .create();
    }

    @AfterEach
    void close() throws Exception {
        ((AutoCloseable) catalog).close();
        objects.close();
    }

    @Test
    void aClaimRecordsTheEpochOnceAndItsHolderCommits() {
        Table first = new LeaseFence(LEASE, 3).claim(catalog.loadTable(ID));
        assertThat(catalog.loadTable(ID).properties()).containsEntry(LeaseFence.EPOCH_PROPERTY, "3");
        String metadata = location();
        Table again = new LeaseFence(LEASE, 3).claim(catalog.loadTable(ID));
        assertThat(location())
                .as("claiming a table claimed at this epoch commits nothing")
                .isEqualTo(metadata);

        PinnedTable.pin(first).newAppend().appendFile(file(first, "a")).commit();
        Table next = PinnedTable.pin(new LeaseFence(LEASE, 3).claim(catalog.loadTable(ID)));
        next.newAppend().appendFile(file(next, "b")).commit();
        assertThat(again.properties()).containsEntry(LeaseFence.EPOCH_PROPERTY, "3");
        assertThat(snapshots(catalog.loadTable(ID))).isEqualTo(2);
    }

    @Test
    void aRoundPinnedBeforeANewerHoldersClaimCannotCommitThoughTheHolderCommittedNothingElse() {
        Table zombie = PinnedTable.pin(new LeaseFence(LEASE, 1).claim(catalog.loadTable(ID)));
        new LeaseFence(LEASE, 2).claim(catalog.loadTable(ID));

        assertThatThrownBy(
                        () -> zombie.newAppend().appendFile(file(zombie, "a")).commit())
                .isInstanceOf(CommitFailedException.class);
        assertThat(snapshots(catalog.loadTable(ID))).isZero();
    }

    @Test
    void aWriterThatReadsTheTableAfterANewerClaimIsRefusedEvenWhenIcebergAppliesItAgain() {
        Table zombieLoad = catalog.loadTable(ID);
        new LeaseFence(LEASE, 1).claim(catalog.loadTable(ID));
        new LeaseFence(LEASE, 2).claim(catalog.loadTable(ID));

        // Loaded after the claim: the catalog's compare-and-set would let it through.
        Table pinnedAfter = PinnedTable.pin(new LeaseFence(LEASE, 1).fence(catalog.loadTable(ID)));
        assertThatThrownBy(() -> pinnedAfter
                        .newAppend()
                        .appendFile(file(pinnedAfter, "a"))
                        .commit())
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("claimed by lease tableflow/t at epoch 2")
                .hasMessageContaining("this writer's lease epoch is 1");
        // Unpinned and stale: Iceberg refreshes (its retries are on here) and applies the append on the
        // newest metadata, which records epoch 2.
        Table unpinned = new LeaseFence(LEASE, 1).fence(zombieLoad);
        assertThatThrownBy(() ->
                        unpinned.newAppend().appendFile(file(unpinned, "b")).commit())
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("epoch 2");
        assertThatThrownBy(() -> unpinned.updateProperties().set("k", "v").commit())
                .isInstanceOf(CommitFailedException.class);
        assertThat(snapshots(catalog.loadTable(ID))).isZero();
        assertThat(catalog.loadTable(ID).properties()).doesNotContainKey("k");
    }

    @Test
    void anOlderEpochCannotClaimATableANewerOneClaimed() {
        new LeaseFence(LEASE, 5).claim(catalog.loadTable(ID));

        assertThatThrownBy(() -> new LeaseFence(LEASE, 4).claim(catalog.loadTable(ID)))
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("claimed by lease tableflow/t at epoch 5");
        assertThat(catalog.loadTable(ID).properties()).containsEntry(LeaseFence.EPOCH_PROPERTY, "5");
    }

    @Test
    void aTableNotClaimedAtTheEpochTakesNoFencedCommit() {
        new LeaseFence(LEASE, 1).claim(catalog.loadTable(ID));
        Table unclaimed = new LeaseFence(LEASE, 2).fence(catalog.loadTable(ID));

        assertThatThrownBy(() ->
                        unclaimed.newAppend().appendFile(file(unclaimed, "a")).commit())
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("commits only on a table it claimed");
    }

    private String location() {
        return ((org.apache.iceberg.HasTableOperations) catalog.loadTable(ID))
                .operations()
                .current()
                .metadataFileLocation();
    }

    private static DataFile file(Table table, String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(10)
                .withRecordCount(1)
                .build();
    }

    private static int snapshots(Table table) {
        int count = 0;
        for (var ignored : table.snapshots()) {
            count++;
        }
        return count;
    }
}
