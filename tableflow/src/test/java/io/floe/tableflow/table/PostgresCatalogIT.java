package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.LocalObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.testkit.postgres.TestPostgres;
import java.nio.file.Path;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Iceberg JDBC catalog on a real PostgreSQL (the shared metadata database of a multi-agent cluster):
 * two agents' catalogs see one table, and a writer pinned at old metadata loses to the newer commit.
 */
class PostgresCatalogIT {

    private static final TableIdentifier ID = TableIdentifier.of("floe", "orders");

    @TempDir
    Path dir;

    @Test
    void twoAgentsShareTablesAndAStaleWriterIsFenced() throws Exception {
        TestPostgres postgres = TestPostgres.get();
        String jdbcUrl = postgres.createDatabase();
        try (LocalObjectStore objects = new LocalObjectStore(dir.resolve("objects"))) {
            ObjectLocations locations =
                    new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
            Catalog first = catalog(jdbcUrl, objects, locations);
            Catalog second = catalog(jdbcUrl, objects, locations);
            try {
                ((SupportsNamespaces) first).createNamespace(Namespace.of("floe"));
                first.buildTable(ID, new Schema(Types.NestedField.required(1, "x", Types.LongType.get())))
                        .withProperties(TableCatalog.TABLE_PROPERTIES)
                        .create();

                Table zombie = PinnedTable.pin(first.loadTable(ID));
                Table newer = PinnedTable.pin(second.loadTable(ID));
                newer.newAppend()
                        .appendFile(file(newer, "a"))
                        .set("floe.watermark", "newer")
                        .commit();
                assertThatThrownBy(() -> zombie.newAppend()
                                .appendFile(file(zombie, "b"))
                                .set("floe.watermark", "zombie")
                                .commit())
                        .isInstanceOf(CommitFailedException.class);

                Table seenByFirst = first.loadTable(ID);
                assertThat(seenByFirst.currentSnapshot().summary()).containsEntry("floe.watermark", "newer");
                assertThat(seenByFirst.currentSnapshot().summary()).containsEntry("total-data-files", "1");
            } finally {
                ((AutoCloseable) first).close();
                ((AutoCloseable) second).close();
            }
        }
    }

    private Catalog catalog(String jdbcUrl, LocalObjectStore objects, ObjectLocations locations) {
        return IcebergCatalogs.jdbc(
                jdbcUrl,
                TestPostgres.USER,
                TestPostgres.PASSWORD,
                locations.root() + "/tables",
                new ObjectStoreFileIO(objects, locations, dir.resolve("spool")));
    }

    private static org.apache.iceberg.DataFile file(Table table, String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(10)
                .withRecordCount(1)
                .build();
    }
}
