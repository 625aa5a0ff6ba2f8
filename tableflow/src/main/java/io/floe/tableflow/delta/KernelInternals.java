package io.floe.tableflow.delta;

import io.delta.kernel.Transaction;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.AddFile;
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
 * {@code dataChange=true} and has no way to remove one, but a compaction's Delta commit removes the
 * files it rewrote and adds its outputs, all with {@code dataChange=false} (so streaming readers skip
 * it); these helpers build those actions as Kernel's own writers do. Reading a scan file's path is
 * internal too (the scan file row's layout is not public).
 */
final class KernelInternals {

    private KernelInternals() {}

    /** An {@code add} action for a file under the table, with its statistics in {@code file}. */
    static Row add(Engine engine, Transaction transaction, DataFileStatus file, boolean dataChange) {
        Row state = transaction.getTransactionState(engine);
        AddFile add = addFile(state, file, dataChange);
        return SingleAction.createAddFileSingleAction(add.toRow());
    }

    /** A {@code remove} action for a file the table's log added, removed at {@code nowMillis}. */
    static Row remove(Engine engine, Transaction transaction, FileStatus file, boolean dataChange, long nowMillis) {
        Row state = transaction.getTransactionState(engine);
        DataFileStatus status =
                new DataFileStatus(file.getPath(), file.getSize(), file.getModificationTime(), Optional.empty());
        AddFile add = addFile(state, status, dataChange);
        return SingleAction.createRemoveFileSingleAction(add.toRemoveFileRow(dataChange, Optional.of(nowMillis)));
    }

    /** The absolute path, size and time of the file a scan file row of a Delta snapshot adds. */
    static FileStatus scanFile(Row scanFileRow) {
        return InternalScanFileUtils.getAddFileStatus(scanFileRow);
    }

    private static AddFile addFile(Row state, DataFileStatus file, boolean dataChange) {
        StructType physicalSchema = TransactionStateRow.getPhysicalSchema(state);
        URI root = new Path(TransactionStateRow.getTablePath(state)).toUri();
        return AddFile.convertDataFileStatus(
                physicalSchema,
                root,
                file,
                Map.of(),
                dataChange,
                Map.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }
}
