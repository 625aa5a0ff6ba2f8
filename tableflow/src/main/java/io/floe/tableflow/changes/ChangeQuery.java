package io.floe.tableflow.changes;

import java.io.IOException;
import org.apache.iceberg.Schema;

/**
 * A planned change query: its two points resolved to offsets, checked against what the table and the
 * log still hold, ready to {@link #run}. Planning refuses what cannot be answered with a
 * {@link ChangeQueryException}; running can still fail that way when retention or expiry passes the
 * range meanwhile.
 */
public interface ChangeQuery {

    /** The table, as {@code namespace.name}. */
    String table();

    ChangeKind kind();

    /** Where the changes start: each partition's first offset in the range. */
    Offsets from();

    /** Where they end: each partition's first offset past the range. */
    Offsets to();

    /** The table's current snapshot when the query was planned. */
    long snapshotId();

    /** The layout of the rows before and after: the table's schema when the query was planned. */
    Schema rowSchema();

    /** Hands {@code sink} every change in order; returns how many. */
    long run(ChangeSink sink) throws IOException;
}
