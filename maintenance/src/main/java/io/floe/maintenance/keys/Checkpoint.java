package io.floe.maintenance.keys;

/**
 * Where key compaction stands in one partition. The offsets below {@code cleanOffset} were cleaned by
 * a pass that completed: each key has at most one record there, so the next pass only needs the keys
 * of what lies above it (the dirty section). Appends only ever land above it, segment compaction moves
 * batches without changing them and retention only removes the head, so a checkpoint stays true
 * however old it is.
 *
 * @param cleanOffset the first offset not cleaned yet
 * @param tombstoneHorizonMs the earliest delete horizon of a tombstone kept below it; at that time a
 *     pass is due even with nothing dirty ({@link Long#MAX_VALUE} when there is none)
 * @param markerHorizonMs the earliest delete horizon of a transaction marker kept below it; at that
 *     time its markers are due for cleaning ({@link Long#MAX_VALUE} when there is none)
 */
record Checkpoint(long cleanOffset, long tombstoneHorizonMs, long markerHorizonMs) {

    /** Nothing cleaned yet (or this agent does not know): the next pass starts at the log start. */
    static final Checkpoint NONE = new Checkpoint(0, Long.MAX_VALUE, Long.MAX_VALUE);

    Checkpoint withMarkerHorizon(long horizonMs) {
        return new Checkpoint(cleanOffset, tombstoneHorizonMs, horizonMs);
    }
}
