package io.floe.tableflow.changes;

import java.time.Instant;

/**
 * The table commit that made a change visible: the first snapshot whose watermark passed the change's
 * offset.
 */
public record Commit(long snapshotId, Instant committedAt) {}
