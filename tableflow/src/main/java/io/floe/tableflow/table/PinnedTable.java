package io.floe.tableflow.table;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table whose commits are a true compare-and-swap against the metadata it was pinned at.
 *
 * <p>Iceberg's own commits are optimistic with rebase: an append re-reads the table's latest metadata
 * and applies itself on top of whatever other writers committed meanwhile (even with retries off, the
 * first attempt refreshes). That is right for independent writers and wrong for Tableflow, whose
 * append is only correct relative to the watermark it read: a stale writer would append the same
 * records again. Pinned, {@code refresh()} keeps answering the metadata the watermark came from, and
 * the catalog's swap of the metadata pointer (the JDBC catalog's conditional UPDATE) fails with
 * {@link org.apache.iceberg.exceptions.CommitFailedException} when any other commit came in between.
 * A pinned table commits once; after that it follows the table (so Iceberg finds its new snapshot).
 * Public for table maintenance ({@code io.floe.tableflow.maintenance}), whose rewrites and expiries
 * are fenced the same way.
 */
public final class PinnedTable {

    private static final Logger LOGGER = LoggerFactory.getLogger(PinnedTable.class);

    private PinnedTable() {}

    /** {@code table} pinned at the metadata it holds now. */
    public static Table pin(Table table) {
        TableOperations ops = ((HasTableOperations) table).operations();
        return new BaseTable(new PinnedOperations(ops, ops.current()), table.name());
    }

    /**
     * Whether a commit of the pinned {@code table} reached the catalog's swap: until it does, a failed
     * commit (writing a manifest, say) cannot have applied. True for a table that is not pinned, where
     * nothing tells.
     */
    static boolean swapAttempted(Table table) {
        if (table instanceof HasTableOperations ops && ops.operations() instanceof PinnedOperations pinned) {
            return pinned.attempted;
        }
        return true;
    }

    private static final class PinnedOperations extends ForwardingTableOperations {
        private final TableMetadata base;
        private volatile boolean committed;
        private volatile boolean attempted;

        PinnedOperations(TableOperations delegate, TableMetadata base) {
            super(delegate);
            this.base = base;
        }

        /** The pinned metadata until this table's commit went through, the table's own afterwards. */
        @Override
        public TableMetadata current() {
            return committed ? delegate.current() : base;
        }

        @Override
        public TableMetadata refresh() {
            return committed ? delegate.refresh() : base;
        }

        @Override
        public void commit(TableMetadata expected, TableMetadata updated) {
            if (committed) {
                throw new IllegalStateException("a pinned table commits once; pin the table again");
            }
            attempted = true;
            try {
                delegate.commit(expected, updated);
            } catch (CommitFailedException e) {
                if (!appliedAfterAll(updated, e)) {
                    throw e;
                }
            }
            committed = true;
        }

        /**
         * Whether a commit the catalog reported as failed went through after all. Iceberg's JDBC catalog
         * reconnects and runs its UPDATE again when the connection drops (SQL states 08xxx): if the first
         * UPDATE had applied, the second matches no row and the catalog throws
         * {@link CommitFailedException}, on which Iceberg deletes the commit's manifests and Tableflow its
         * data files, while the table now points at them. So a failed snapshot commit looks for its
         * snapshot in the table as the catalog has it now; when it cannot look, the outcome is unknown.
         */
        private boolean appliedAfterAll(TableMetadata updated, CommitFailedException failure) {
            Snapshot ours = updated.currentSnapshot();
            if (ours == null || base.snapshot(ours.snapshotId()) != null) {
                return false; // not a commit that adds a snapshot (an expiry): retrying it later is harmless
            }
            TableMetadata now;
            try {
                now = delegate.refresh();
            } catch (RuntimeException refreshFailed) {
                refreshFailed.addSuppressed(failure);
                throw new CommitStateUnknownException(refreshFailed);
            }
            if (now == null || now.snapshot(ours.snapshotId()) == null) {
                return false;
            }
            LOGGER.warn(
                    "commit reported as failed applied after all (the catalog retried it) table={} snapshot={}:"
                            + " {}",
                    delegate.current().location(),
                    ours.snapshotId(),
                    failure.getMessage());
            return true;
        }
    }
}
