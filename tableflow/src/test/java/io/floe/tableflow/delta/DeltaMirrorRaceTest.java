package io.floe.tableflow.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mirror against the two ways a Delta commit's put goes wrong: it lands but reports a failure
 * (unknown outcome), and another writer (a zombie agent) commits the same version first. Either way
 * the log ends with one version for the Iceberg snapshot and no version is written twice.
 */
class DeltaMirrorRaceTest {

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    Path dir;

    private Runnable beforeLogPut = () -> {};
    private boolean failAfterLogPut;

    @Test
    void aPutThatLandedButFailedIsNotCommittedAgain() throws Exception {
        try (LocalObjectStore local = new LocalObjectStore(dir.resolve("objects"))) {
            Fixture fixture = new Fixture(local);
            fixture.append(1, 10);
            DeltaMirror mirror = fixture.mirror();
            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.COMMITTED);
            fixture.append(11, 20);
            Map<String, ByteBuffer> before = fixture.log();

            // The put lands and reports a failure: the mirror plans again, finds the version there, and
            // commits nothing more.
            failAfterLogPut = true;
            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.UP_TO_DATE);
            failAfterLogPut = false;
            Map<String, ByteBuffer> landed = fixture.log();
            assertThat(landed).containsAllEntriesOf(before).hasSize(before.size() + 1);

            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.UP_TO_DATE);
            assertThat(fixture.log()).isEqualTo(landed);
            assertThat(fixture.meters.find("floe.tableflow.delta.failures").counter())
                    .isNull();
            fixture.assertRowsMatch();
        }
    }

    @Test
    void aCommitThatLostToAnotherWriterIsPlannedAgainAndFindsTheLogThere() throws Exception {
        try (LocalObjectStore local = new LocalObjectStore(dir.resolve("objects"))) {
            Fixture fixture = new Fixture(local);
            fixture.append(1, 10);
            DeltaMirror mirror = fixture.mirror();
            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.COMMITTED);
            fixture.append(11, 20);
            DeltaMirror zombie = fixture.mirror();
            Map<String, ByteBuffer> before = fixture.log();

            // The zombie commits the same Iceberg snapshot just before this mirror's put of the version.
            beforeLogPut = () -> {
                beforeLogPut = () -> {};
                assertThat(zombie.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.COMMITTED);
            };
            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.UP_TO_DATE);

            assertThat(fixture.log()).containsAllEntriesOf(before).hasSize(before.size() + 1);
            fixture.assertRowsMatch();
        }
    }

    /** A table on a JDBC catalog whose object store lets the test intervene in Delta log puts. */
    private final class Fixture {
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final ObjectStore store;
        final ObjectLocations locations;
        final Catalog catalog;
        final TableIdentifier id = TableIdentifier.of("floe", "t");
        private long task;

        Fixture(LocalObjectStore local) {
            store = new Intervening(local);
            locations = new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
            catalog = IcebergCatalogs.jdbc(
                    "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath(),
                    null,
                    null,
                    locations.root() + "/tables",
                    new ObjectStoreFileIO(store, locations, dir.resolve("spool")));
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("floe"));
            catalog.createTable(id, SCHEMA);
        }

        Table table() {
            return catalog.loadTable(id);
        }

        DeltaMirror mirror() {
            return new DeltaMirror(new DeltaMetrics(meters, "t"), new ManualClock());
        }

        void append(long from, long to) throws IOException {
            Table table = table();
            OutputFileFactory files = OutputFileFactory.builderFor(table, 0, ++task)
                    .format(FileFormat.PARQUET)
                    .build();
            DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
                    .dataFileFormat(FileFormat.PARQUET)
                    .build()
                    .newDataWriter(files.newOutputFile(), table.spec(), null);
            try (writer) {
                for (long i = from; i <= to; i++) {
                    GenericRecord row = GenericRecord.create(SCHEMA);
                    row.setField("id", i);
                    row.setField("name", i % 3 == 0 ? null : "name " + i);
                    writer.write(row);
                }
            }
            DataFile file = writer.toDataFile();
            table.newAppend().appendFile(file).commit();
        }

        Map<String, ByteBuffer> log() {
            Map<String, ByteBuffer> log = new TreeMap<>();
            String prefix = locations.keyPrefix(table().location() + "/_delta_log");
            for (ObjectInfo info : store.list(prefix)) {
                if (info.key().value().endsWith(".json")) {
                    log.put(info.key().value(), store.get(info.key()));
                }
            }
            return log;
        }

        void assertRowsMatch() {
            Table table = table();
            List<Record> records = new java.util.ArrayList<>();
            try (var rows = org.apache.iceberg.data.IcebergGenerics.read(table).build()) {
                rows.forEach(records::add);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            assertThat(DeltaReads.deltaRows(store, locations, locations.location(locations.key(table.location()))))
                    .containsExactlyInAnyOrderElementsOf(DeltaReads.icebergRows(table, records))
                    .hasSize(20);
        }
    }

    /** Runs {@link #beforeLogPut} before, and fails after (when told), each put of a Delta commit. */
    private final class Intervening implements ObjectStore {
        private final ObjectStore delegate;

        Intervening(ObjectStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public void put(ObjectKey key, ByteBuffer content) {
            boolean commit = key.value().contains("/_delta_log/") && key.value().endsWith(".json");
            if (commit) {
                beforeLogPut.run();
            }
            delegate.put(key, content);
            if (commit && failAfterLogPut) {
                throw new ObjectStoreException("connection reset after the put of " + key.value(), true);
            }
        }

        @Override
        public ByteBuffer get(ObjectKey key, ByteRange range) {
            return delegate.get(key, range);
        }

        @Override
        public ByteBuffer get(ObjectKey key) {
            return delegate.get(key);
        }

        @Override
        public List<ObjectInfo> list(String prefix) {
            return delegate.list(prefix);
        }

        @Override
        public void delete(ObjectKey key) {
            delegate.delete(key);
        }

        @Override
        public String describe() {
            return "intervening " + delegate.describe();
        }

        @Override
        public void close() {}
    }
}
