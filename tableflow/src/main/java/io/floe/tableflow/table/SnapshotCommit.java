package io.floe.tableflow.table;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a round's files to a table with its watermark (an append, or an upsert round's row delta),
 * and says whether the commit applied.
 *
 * <p>Only a {@link CommitFailedException} (the compare-and-swap found other metadata), a
 * {@link ValidationException}, or a failure before the catalog's swap was attempted (writing a manifest
 * to the object store, say; {@link PinnedTable#swapAttempted}) proves that the commit did not apply;
 * those files are deleted here. Anything else thrown by the commit ({@code CommitStateUnknownException},
 * the JDBC catalog's {@code UncheckedSQLException} when the database connection drops during the
 * UPDATE, a failed refresh after the swap) leaves the outcome unknown: the swap may have happened and
 * the table may reference the files, so they stay. The next round reads the table's watermark to find
 * out; if the swap did not happen, the files are orphans and table maintenance removes them once they
 * are older than its age. (A {@link CommitFailedException} for a commit that did apply, which the JDBC
 * catalog's retry after a dropped connection produces, is turned back into success by
 * {@link PinnedTable} before it gets here.)
 */
final class SnapshotCommit {

    private static final Logger LOGGER = LoggerFactory.getLogger(SnapshotCommit.class);

    private SnapshotCommit() {}

    /** Outcome of one snapshot commit. Callers switch over it. */
    sealed interface Outcome {
        /** The snapshot is the table's current one. */
        record Committed() implements Outcome {}

        /** Did not apply (rejected, or failed before the swap); its files are deleted. */
        record Rejected(RuntimeException cause) implements Outcome {}

        /** May have applied: its files stay, the next round re-reads the table's watermark. */
        record Unknown(RuntimeException cause) implements Outcome {}
    }

    static Outcome append(Table table, List<DataFile> files, Watermark watermark, String what, Clock clock) {
        AppendFiles append = table.newAppend();
        files.forEach(append::appendFile);
        return commit(table, append, files, watermark, what, clock);
    }

    /** Appends a round's rows, decoded with {@code decoding}, which the commit names. */
    static Outcome append(
            Table table, List<DataFile> files, Watermark watermark, RecordDecoding decoding, Clock clock) {
        AppendFiles append = table.newAppend();
        files.forEach(append::appendFile);
        append.set(RecordDecoding.SUMMARY_PROPERTY, decoding.fingerprint());
        return commit(table, append, files, watermark, "records", clock);
    }

    /**
     * Commits an upsert round: its rows and deletion vectors, the vectors they replace removed, in one
     * snapshot validated against the snapshot the round was planned on, naming the settings its records
     * were decoded with.
     */
    static Outcome rowDelta(
            Table table, UpsertRound.Written round, Watermark watermark, RecordDecoding decoding, Clock clock) {
        RowDelta delta = table.newRowDelta();
        delta.set(RecordDecoding.SUMMARY_PROPERTY, decoding.fingerprint());
        round.dataFiles().forEach(delta::addRows);
        round.deleteFiles().forEach(delta::addDeletes);
        round.rewrittenDeleteFiles().forEach(delta::removeDeletes);
        if (table.currentSnapshot() != null) {
            delta.validateFromSnapshot(table.currentSnapshot().snapshotId());
        }
        delta.validateDataFilesExist(round.referencedDataFiles()).validateDeletedFiles();
        return commit(table, delta, round.newFiles(), watermark, "upserts", clock);
    }

    private static Outcome commit(
            Table table,
            SnapshotUpdate<?> update,
            List<? extends ContentFile<?>> files,
            Watermark watermark,
            String what,
            Clock clock) {
        update.set(Watermark.SUMMARY_PROPERTY, watermark.toJson());
        update.set("floe.committed-at", Instant.now(clock).toString());
        try {
            update.commit();
            return new Outcome.Committed();
        } catch (CommitFailedException | ValidationException e) {
            LOGGER.warn(
                    "table commit rejected table={} ({}): {}; its {} files are removed",
                    table.name(),
                    what,
                    e.getMessage(),
                    files.size());
            deleteUncommitted(table, files);
            return new Outcome.Rejected(e);
        } catch (RuntimeException e) {
            if (!PinnedTable.swapAttempted(table)) {
                LOGGER.warn(
                        "table commit failed before the catalog swap table={} ({}): {}; its {} files are removed",
                        table.name(),
                        what,
                        e.toString(),
                        files.size());
                deleteUncommitted(table, files);
                return new Outcome.Rejected(e);
            }
            LOGGER.warn(
                    "table commit outcome unknown table={} ({}) watermark={}: {}; its {} files stay, the next"
                            + " round reads the table's watermark",
                    table.name(),
                    what,
                    watermark.nextOffsets(),
                    e.toString(),
                    files.size());
            return new Outcome.Unknown(e);
        }
    }

    /** Deletes files no commit ever referenced (never attempted, or definitely rejected). */
    static void deleteUncommitted(Table table, List<? extends ContentFile<?>> files) {
        for (ContentFile<?> file : files) {
            try {
                table.io().deleteFile(file.location());
            } catch (RuntimeException e) {
                // An undeleted file is an orphan that table maintenance removes later.
                LOGGER.debug("cannot remove uncommitted file {}: {}", file.location(), e.toString());
            }
        }
    }
}
