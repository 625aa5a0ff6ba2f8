package io.floe.tableflow.maintenance;

/** What a compaction did. Callers switch over it. */
public sealed interface CompactionOutcome {

    /** The schedule did not call for one. */
    record NotDue() implements CompactionOutcome {}

    /** Planned, but no partition had two small files to merge. */
    record NothingToDo() implements CompactionOutcome {}

    /**
     * Committed: {@code filesRewritten} small files ({@code bytesRewritten} bytes) replaced by
     * {@code filesAdded}; {@code more} when the run's byte budget left small files for the next one.
     */
    record Compacted(int filesRewritten, int filesAdded, long bytesRewritten, boolean more)
            implements CompactionOutcome {}

    /** Not applied: the table changed after the plan (a round committed); its new files were deleted. */
    record Conflict(String reason) implements CompactionOutcome {}

    /** May have applied: its new files are kept (orphan removal deletes them if not), the next run re-plans. */
    record Unknown(String reason) implements CompactionOutcome {}

    /** Reading or writing failed before the commit; its new files were deleted. */
    record Failed(String reason) implements CompactionOutcome {}
}
