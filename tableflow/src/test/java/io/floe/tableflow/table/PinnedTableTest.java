package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.LocalObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import java.nio.file.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
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

/** The table writer's fence: a commit pinned at old metadata fails once anyone else committed. */
class PinnedTableTest {

    private static final TableIdentifier ID = TableIdentifier.of("floe", "t");

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
        catalog.buildTable(ID, new Schema(Types.NestedField.required(1, "x", Types.LongType.get())))
                .withProperties(TableCatalog.TABLE_PROPERTIES)
                .create();
    }

    @AfterEach
    void close() throws Exception {
        ((AutoCloseable) catalog).close();
        objects.close();
    }

    @Test
    @SuppressWarnings("deprecation") // Snapshot#addedDataFiles: the shortest way to list one snapshot's files
    void aStaleUnpinnedAppendIsRebasedByIcebergWhichIsWhyTableflowPins() {
        Table stale = catalog.loadTable(ID);
        catalog.loadTable(ID).newAppend().appendFile(file(stale, "a")).commit();
        stale.newAppend().appendFile(file(stale, "b")).commit();
        assertThat(catalog.loadTable(ID).currentSnapshot().addedDataFiles(objects(catalog.loadTable(ID))))
                .hasSize(1);
        assertThat(snapshots(catalog.loadTable(ID))).isEqualTo(2);
    }

    @Test
    void aStalePinnedAppendFailsAndLeavesTheNewerCommit() {
        Table zombie = PinnedTable.pin(catalog.loadTable(ID));
        Table newer = PinnedTable.pin(catalog.loadTable(ID));
        newer.newAppend()
                .appendFile(file(newer, "a"))
                .set("floe.watermark", "newer")
                .commit();

        assertThatThrownBy(() -> zombie.newAppend()
                        .appendFile(file(zombie, "b"))
                        .set("floe.watermark", "zombie")
                        .commit())
                .isInstanceOf(CommitFailedException.class);
        Table current = catalog.loadTable(ID);
        assertThat(current.currentSnapshot().summary()).containsEntry("floe.watermark", "newer");
        assertThat(snapshots(current)).isEqualTo(1);
    }

    @Test
    void aPinnedAppendOnCurrentMetadataCommits() {
        Table first = PinnedTable.pin(catalog.loadTable(ID));
        first.newAppend().appendFile(file(first, "a")).commit();
        Table second = PinnedTable.pin(catalog.loadTable(ID));
        second.newAppend().appendFile(file(second, "b")).commit();
        assertThat(snapshots(catalog.loadTable(ID))).isEqualTo(2);
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

    private static org.apache.iceberg.io.FileIO objects(Table table) {
        return table.io();
    }
}
