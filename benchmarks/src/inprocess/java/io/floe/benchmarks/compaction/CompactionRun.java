package io.floe.benchmarks.compaction;

/**
 * What compaction did, from the {@code floe.compaction.*} and {@code floe.cleanup.*} counters and the driver's
 * clock.
 *
 * @param sessions times compaction ran: rounds back to back until one found nothing to do, then cleanup
 * @param rounds compaction rounds that found work (the last round of each session, which found none, is not
 *     counted)
 * @param nanos wall time of all compaction rounds, the empty ones included
 * @param bytesRead bytes of input objects compaction read ({@code floe.compaction.bytes.read})
 * @param idleBytesRead the part of {@code bytesRead} read by rounds that then found nothing to do: their inputs
 *     were all per-partition objects already (outputs below the small-object size)
 * @param bytesWritten bytes of output objects it wrote ({@code floe.compaction.bytes.written})
 * @param swapsRewritten outputs swapped in
 * @param swapsFailed swaps rejected or of unknown outcome (0 expected: nothing else writes meanwhile)
 * @param inputsReleased input objects whose last batch moved
 * @param cleanupRounds cleanup rounds run past the delete delay until no deletion was pending
 * @param cleanupNanos their wall time
 * @param objectsDeleted objects those rounds deleted from the object store
 */
record CompactionRun(
        int sessions,
        int rounds,
        long nanos,
        long bytesRead,
        long idleBytesRead,
        long bytesWritten,
        long swapsRewritten,
        long swapsFailed,
        long inputsReleased,
        int cleanupRounds,
        long cleanupNanos,
        long objectsDeleted) {

    double seconds() {
        return nanos / 1e9;
    }
}
