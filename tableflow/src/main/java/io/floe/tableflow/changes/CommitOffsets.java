package io.floe.tableflow.changes;

/** A table commit and the position in its topic that the table holds from it on (its watermark). */
public record CommitOffsets(Commit commit, Offsets watermark) {}
