package io.floe.agent.fetch;

/** Which records a fetch may see (Kafka's isolation level). */
public enum FetchIsolation {
    /** Everything up to the high watermark, open transactions included. */
    READ_UNCOMMITTED,
    /** Entries below the last stable offset only, with the aborted transactions among them. */
    READ_COMMITTED
}
