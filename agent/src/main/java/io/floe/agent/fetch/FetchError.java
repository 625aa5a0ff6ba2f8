package io.floe.agent.fetch;

/** Why a partition of a fetch returned no records. */
public enum FetchError {
    UNKNOWN_TOPIC_OR_PARTITION,
    /** The fetch offset is below the log start or above the high watermark. */
    OFFSET_OUT_OF_RANGE,
    /** The object store or metadata store failed; retriable. */
    STORAGE_ERROR
}
