package io.floe.tableflow.changes;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.iceberg.data.Record;

/**
 * One change of a table: what happened to the row of {@code key}, the row before (null for an insert)
 * and after (null for a delete) in the table's current schema, the record that caused it (its partition,
 * offset and timestamp) and the commit that made it visible.
 *
 * @param key the row's key ({@code io.floe.tableflow.rows.UpsertKey}): the Kafka record key, or for an
 *     upsert table keyed by columns their values' encoding (shown as those values, {@link ChangeKey});
 *     for an append table the row's record key, which may be null
 * @param commit the commit that made the change visible, or null when that snapshot has been expired
 *     (only for old rows of an append table)
 */
public record Change(
        Op op,
        ByteBuffer key,
        Record before,
        Record after,
        int partition,
        long offset,
        long timestampMs,
        Commit commit) {

    public Change {
        Objects.requireNonNull(op, "op");
        if ((before == null) != (op == Op.INSERT) || (after == null) != (op == Op.DELETE)) {
            throw new IllegalArgumentException("a change " + op + " at " + partition + ":" + offset
                    + " needs a row before unless an insert and a row after unless a delete");
        }
    }
}
