package io.floe.core.metadata;

import java.util.List;

/** Outcome of committing one uploaded object. Callers switch over it. */
public sealed interface CommitOutcome {

    /** Applied: one result per batch of the {@link ObjectCommit}, in the same order. */
    record Committed(List<AppendResult> results) implements CommitOutcome {
        public Committed {
            results = List.copyOf(results);
        }
    }

    /**
     * Not applied, and never will be (the upload's registration was gone, for example). The object
     * may be deleted.
     */
    record Rejected(String reason) implements CommitOutcome {}

    /**
     * May or may not have been applied (the connection broke after the statement was sent). Never
     * delete the object; answer producers with a retriable error so their idempotent retry resolves
     * the outcome.
     */
    record Unknown(Throwable cause) implements CommitOutcome {}
}
