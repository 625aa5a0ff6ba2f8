package io.floe.core.metadata;

/** What a commit did with one batch. Callers switch over it. */
public sealed interface AppendResult {

    /**
     * Appended at {@code baseOffset}; {@code logStartOffset} is the partition's log start after the
     * commit; {@code logAppendTimeMs} is the timestamp the agent gave the batch on a topic with
     * {@code message.timestamp.type=LogAppendTime}, else -1.
     */
    record Appended(long baseOffset, long logStartOffset, long logAppendTimeMs) implements AppendResult {

        public Appended(long baseOffset, long logStartOffset) {
            this(baseOffset, logStartOffset, -1);
        }
    }

    /**
     * An idempotent retry of a batch already stored at {@code baseOffset}: not stored again.
     * {@code baseOffset} is {@link #UNKNOWN_OFFSET} when the batch is older than the producer's
     * remembered batches (it is stored, but where is no longer known cheaply).
     */
    record Duplicate(long baseOffset, long logStartOffset) implements AppendResult {
        public static final long UNKNOWN_OFFSET = -1L;

        public boolean offsetKnown() {
            return baseOffset != UNKNOWN_OFFSET;
        }
    }

    /** Not appended, for the stated reason; the rest of the commit is unaffected. */
    record Failed(AppendError error, String message) implements AppendResult {}
}
