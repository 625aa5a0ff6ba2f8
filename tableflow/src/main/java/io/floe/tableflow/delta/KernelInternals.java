package io.floe.tableflow.delta;

import io.delta.kernel.Transaction;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.TransactionStateRow;
import io.delta.kernel.internal.fs.Path;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * The only use of Delta Kernel's internal classes, written against delta-kernel-api 4.4.1 (pinned in
 * the root pom; check these calls when it moves). Kernel's public API appends files only with
 * {@code dataChange=true} and without deletion vectors, and has no way to remove one; but a
 * compaction's Delta commit removes the files it rewrote and adds its outputs, all with
 * {@code dataChange=false} (so streaming readers skip it), and an upsert table's files carry the
 * deletion vectors Iceberg wrote for them. These helpers build those actions as Kernel's own writers
 * do. Reading a scan file's path and deletion vector is internal too (the scan file row's layout is
 * not public).
 */
final class KernelInternals {

    /** Delta's storage type of a deletion vector at an absolute path. */
    private static final String ABSOLUTE_PATH = DeletionVectorDescriptor.PATH_DV_MARKER;

    private KernelInternals() {}

    /**
     * An {@code add} action for a file under the table, with its statistics in {@code file} and, when
     * present, the deletion vector that hides some of its rows.
     */
    static Row add(
            Engine engine,
            Transaction transaction,
            DataFileStatus file,
            boolean dataChange,
            Optional<DeletionVector> vector) {
        Row state = transaction.getTransactionState(engine);
        StructType physicalSchema = TransactionStateRow.getPhysicalSchema(state);
        URI root = new Path(TransactionStateRow.getTablePath(state)).toUri();
        AddFile add = AddFile.convertDataFileStatus(
                physicalSchema,
                root,
                file,
                Map.of(),
                dataChange,
                Map.of(),
                Optional.empty(),
                Optional.empty(),
                vector.map(KernelInternals::descriptor));
        return SingleAction.createAddFileSingleAction(add.toRow());
    }

    /**
     * A {@code remove} action for the file a scan file row of the table's snapshot adds, removed at
     * {@code nowMillis}: the same path and deletion vector, which is how Delta names a logical file.
     */
    static Row remove(Row scanFileRow, boolean dataChange, long nowMillis) {
        AddFile add = new AddFile(scanFileRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
        return SingleAction.createRemoveFileSingleAction(add.toRemoveFileRow(dataChange, Optional.of(nowMillis)));
    }

    /** The absolute path, size and time of the file a scan file row of a Delta snapshot adds. */
    static FileStatus scanFile(Row scanFileRow) {
        return InternalScanFileUtils.getAddFileStatus(scanFileRow);
    }

    /**
     * The deletion vector of the file a scan file row adds, its location an absolute path; empty when
     * it has none. Floe writes only absolute-path vectors; an inline one (another writer's) is refused.
     */
    static Optional<DeletionVector> deletionVector(Row scanFileRow) {
        DeletionVectorDescriptor descriptor = InternalScanFileUtils.getDeletionVectorDescriptorFromRow(scanFileRow);
        if (descriptor == null) {
            return Optional.empty();
        }
        if (descriptor.isInline()) {
            throw new IllegalStateException("the Delta log has an inline deletion vector for "
                    + InternalScanFileUtils.getFilePath(scanFileRow)
                    + ", which Floe never writes: was the table written by another Delta writer?");
        }
        String tableRoot = scanFileRow.getString(scanFileRow.getSchema().indexOf("tableRoot"));
        return Optional.of(new DeletionVector(
                descriptor.getAbsolutePath(tableRoot),
                descriptor.getOffset().orElse(0),
                descriptor.getSizeInBytes(),
                descriptor.getCardinality()));
    }

    private static DeletionVectorDescriptor descriptor(DeletionVector vector) {
        return new DeletionVectorDescriptor(
                ABSOLUTE_PATH,
                new Path(vector.location()).toUri().toString(),
                Optional.of(vector.offset()),
                vector.sizeInBytes(),
                vector.cardinality());
    }
}
