package io.floe.benchmarks.compaction;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything one run measured, in the order it happened.
 *
 * @param produceNanos wall time of producing the workload, compaction while producing left out (context only:
 *     not a produce benchmark)
 * @param producedBatchBytes bytes of the batches produced
 * @param ingestedObjects objects the agent uploaded (and committed: every append was appended)
 * @param ingestedBytes their bytes, from the agent's object-store meters ({@code floe.objectstore.bytes{kind=PUT}})
 * @param before storage when the last record was committed, before the last compaction
 * @param uncompacted the read passes before compaction; none when compaction also ran while producing
 * @param compaction what compaction and the cleanup after it did
 * @param after storage after compaction and cleanup
 * @param compacted the read passes after
 */
record Measurements(
        long produceNanos,
        long producedBatchBytes,
        long ingestedObjects,
        long ingestedBytes,
        Storage before,
        List<ReadPass> uncompacted,
        CompactionRun compaction,
        Storage after,
        List<ReadPass> compacted) {

    Measurements {
        uncompacted = List.copyOf(uncompacted);
        compacted = List.copyOf(compacted);
    }

    /** Bytes compaction read per byte ingested. */
    double readAmplification() {
        return (double) compaction.bytesRead() / ingestedBytes();
    }

    /** Bytes compaction wrote per byte ingested. */
    double writeAmplification() {
        return (double) compaction.bytesWritten() / ingestedBytes();
    }

    List<ReadPass> passes() {
        List<ReadPass> all = new ArrayList<>(uncompacted);
        all.addAll(compacted);
        return all;
    }

    /**
     * How the reads differ from what was produced and from one another: the first pass must hold
     * {@code recordsProduced} records, and every pass the same digest per partition as the first. Empty when
     * all agree.
     */
    List<String> mismatches(long recordsProduced) {
        List<String> problems = new ArrayList<>();
        List<ReadPass> passes = passes();
        ReadPass reference = passes.get(0);
        if (reference.records() != recordsProduced) {
            problems.add(reference.label() + " read " + reference.records() + " records, " + recordsProduced
                    + " were produced");
        }
        for (ReadPass pass : passes.subList(1, passes.size())) {
            for (int p = 0; p < reference.digests().size(); p++) {
                PartitionDigest expected = reference.digests().get(p);
                PartitionDigest actual = p < pass.digests().size() ? pass.digests().get(p) : null;
                if (!expected.equals(actual)) {
                    problems.add("partition " + p + ": " + pass.label() + " read " + actual + ", "
                            + reference.label() + " read " + expected);
                }
            }
        }
        return problems;
    }
}
