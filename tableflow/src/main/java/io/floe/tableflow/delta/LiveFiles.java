package io.floe.tableflow.delta;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import io.floe.tableflow.io.ObjectLocations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;

/**
 * The two sides the mirror compares: the live data files of a Delta snapshot and of an Iceberg
 * snapshot, each by location (as {@link ObjectLocations} writes them) with the deletion vector that
 * hides some of its rows. A file is the same in both logs only with the same vector: Delta names a
 * logical file by its path and its vector, so a vector that changed is a remove of the old pair and
 * an add of the new one.
 */
final class LiveFiles {

    private LiveFiles() {}

    /** A data file a Delta snapshot adds, its deletion vector, and the scan file row it came in. */
    record DeltaFile(String location, Optional<DeletionVector> vector, Row scanFile) {}

    /** A data file of an Iceberg snapshot and its deletion vector. */
    record IcebergFile(DataFile data, Optional<DeletionVector> vector) {}

    /** The Delta snapshot's live data files by location. */
    static Map<String, DeltaFile> delta(Engine engine, Snapshot delta, ObjectLocations locations) {
        Map<String, DeltaFile> files = new HashMap<>();
        Scan scan = delta.getScanBuilder().build();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        Row row = rows.next();
                        String location =
                                normal(locations, KernelInternals.scanFile(row).getPath());
                        Optional<DeletionVector> vector = KernelInternals.deletionVector(row)
                                .map(dv -> new DeletionVector(
                                        normal(locations, dv.location()),
                                        dv.offset(),
                                        dv.sizeInBytes(),
                                        dv.cardinality()));
                        files.put(location, new DeltaFile(location, vector, row));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /**
     * The Iceberg snapshot's data files by location, each with its deletion vector; refuses any other
     * kind of delete file (position or equality deletes), which a Delta log cannot express.
     */
    static Map<String, IcebergFile> iceberg(Table table, long snapshotId, ObjectLocations locations) {
        Map<String, IcebergFile> files = new LinkedHashMap<>();
        try (org.apache.iceberg.io.CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshotId).includeColumnStats().planFiles()) {
            for (FileScanTask task : tasks) {
                files.put(
                        normal(locations, task.file().location()),
                        new IcebergFile(task.file(), vector(task, locations)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static Optional<DeletionVector> vector(FileScanTask task, ObjectLocations locations) {
        List<DeleteFile> deletes = task.deletes();
        if (deletes.isEmpty()) {
            return Optional.empty();
        }
        if (deletes.size() > 1) {
            throw new IllegalStateException("data file " + task.file().location() + " has " + deletes.size()
                    + " delete files; a Delta log can express one deletion vector per file");
        }
        return Optional.of(DeletionVector.of(deletes.get(0), locations));
    }

    private static String normal(ObjectLocations locations, String location) {
        return locations.location(locations.key(location));
    }
}
