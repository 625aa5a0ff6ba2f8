package io.floe.tableflow.table;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fences a table job's commits by the epoch of its lease, so that a round that lost its lease (its agent
 * paused past the lease, its round longer than its renewals) commits nothing once another agent took the
 * table. The table records the epoch of the last holder that claimed it ({@value #EPOCH_PROPERTY}); a
 * holder's first act on a table is to {@link #claim} it, a metadata commit that records its epoch; and
 * every commit through a claimed table checks, on the metadata it is about to replace, that the recorded
 * epoch is its own.
 *
 * <p>Why both: the catalog's compare-and-set on the metadata location refuses a round pinned before the
 * new holder's claim (the claim changed the metadata), even when the new holder commits nothing else (a
 * takeover whose only work was orphan removal, which deletes the files the old round is about to
 * commit). A round that read the metadata after the claim, or a commit that Iceberg refreshes and
 * applies again (its retries, an unpinned property update), meets the new epoch in its base and is
 * refused by the check. The check runs in the table operations' {@code commit}, after every refresh
 * Iceberg makes and just before the catalog's swap, whose compare-and-set makes the base the table's
 * metadata at the swap: so a commit applies only on metadata that records this epoch.
 *
 * <p>Lease epochs only grow, so a claim never lowers the recorded epoch; a table whose recorded epoch is
 * higher than the lease's belongs to a newer holder, and the claim is refused.
 */
final class LeaseFence {

    private static final Logger LOGGER = LoggerFactory.getLogger(LeaseFence.class);

    /** The table property holding the lease epoch of the job that last claimed the table. */
    static final String EPOCH_PROPERTY = "floe.tableflow.lease.epoch";

    private final String lease;
    private final long epoch;

    /** The fence of lease {@code lease} (its name, for messages) at {@code epoch}. */
    LeaseFence(String lease, long epoch) {
        this.lease = lease;
        this.epoch = epoch;
    }

    long epoch() {
        return epoch;
    }

    /**
     * {@code table} claimed for this epoch and fenced by it: records the epoch on the table unless it is
     * recorded already (one metadata commit, through the fence), and returns the table with every commit
     * fenced. Throws {@link CommitFailedException} when a newer holder claimed the table, or when the claim
     * lost a race with another commit (the next round claims again).
     */
    Table claim(Table table) {
        TableMetadata current = operations(table).current();
        long recorded = recorded(current);
        if (recorded > epoch) {
            throw refused(table.name(), recorded);
        }
        Table fenced = fence(table);
        if (recorded < epoch) {
            fenced.updateProperties().set(EPOCH_PROPERTY, Long.toString(epoch)).commit();
            LOGGER.info(
                    "table claimed table={} lease={} epoch={} previousEpoch={}",
                    table.name(),
                    lease,
                    epoch,
                    recorded < 0 ? "none" : recorded);
        }
        return fenced;
    }

    /** {@code table} with every commit refused unless the metadata it replaces records this epoch. */
    Table fence(Table table) {
        return new BaseTable(new FencedOperations(operations(table), table.name()), table.name());
    }

    /** The epoch recorded on {@code metadata}; -1 when none is (a table no fenced job claimed yet). */
    static long recorded(TableMetadata metadata) {
        String value = metadata == null ? null : metadata.properties().get(EPOCH_PROPERTY);
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private CommitFailedException refused(String table, long recorded) {
        return new CommitFailedException(
                "table %s is claimed by lease %s at epoch %s and this writer's lease epoch is %s: the table's lease"
                        + " moved to another agent, so this writer commits nothing (if the metadata store was"
                        + " restored from a backup, remove the table property %s to let the new leases claim it)",
                table, lease, recorded, epoch, EPOCH_PROPERTY);
    }

    private static TableOperations operations(Table table) {
        return ((HasTableOperations) table).operations();
    }

    /** Forwards everything but a commit whose base records another epoch (or whose result would). */
    private final class FencedOperations extends ForwardingTableOperations {
        private final String table;

        FencedOperations(TableOperations delegate, String table) {
            super(delegate);
            this.table = table;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata updated) {
            long before = recorded(base);
            long after = recorded(updated);
            // A claim raises the recorded epoch to this one; every other commit keeps it at this one.
            if (before > epoch) {
                throw refused(table, before);
            }
            if (after != epoch) {
                throw new CommitFailedException(
                        "table %s records lease epoch %s, and this commit would leave it at %s; a writer at epoch %s"
                                + " commits only on a table it claimed",
                        table, before, after, epoch);
            }
            delegate.commit(base, updated);
        }
    }
}
