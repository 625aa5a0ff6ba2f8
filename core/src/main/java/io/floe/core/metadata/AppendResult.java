package io.floe.core.metadata;

/** What a commit did with one batch. Callers switch over it. */
public sealed interface AppendResult {

    /** Appended at {@code baseOffset}; {@code logStartOffset} is the partition's log start after the commit. */
    record Appended(long baseOffset, long logStartOffset) implements AppendResult {}

    /** An idempotent retry of a batch already stored at {@code baseOffset}: not stored again. */
    record Duplicate(long baseOffset, long logStartOffset) implements AppendResult {}

    /** Not appended, for the stated reason; the rest of the commit is unaffected. */
    record Failed(AppendError error, String message) implements AppendResult {}
}
