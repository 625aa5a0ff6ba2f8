package io.floe.core.metadata;

import io.floe.core.object.ObjectKey;
import java.util.List;

/** Outcome of swapping batch rows into a compacted object. Callers switch over it. */
public sealed interface RewriteOutcome {

    /** Applied: the batches now point into the output; {@code released} input objects lost their last reference. */
    record Rewritten(List<ObjectKey> released) implements RewriteOutcome {
        public Rewritten {
            released = List.copyOf(released);
        }
    }

    /**
     * Not applied: a batch row no longer matched the plan (retention, a topic deletion or another
     * compaction got there first) or the output's registration was gone. The output holds no
     * referenced batch; the orphan sweep removes it.
     */
    record Rejected(String reason) implements RewriteOutcome {}

    /** May or may not have applied: never delete the output; the next plan reads the rows afresh. */
    record Unknown(Throwable cause) implements RewriteOutcome {}
}
