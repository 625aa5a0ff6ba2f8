package io.floe.core.log;

/**
 * One entry of a partition's log as the fetch path serves it: a batch of records in an object, or a
 * transaction marker, which occupies one offset and whose bytes are made when it is served.
 */
public sealed interface LogEntry permits BatchCoordinate, TransactionMarker {

    TopicPartition topicPartition();

    long baseOffset();

    long lastOffset();

    /** The bytes the entry takes in a fetch response. */
    int sizeInBytes();

    /** The offset after this entry. */
    default long nextOffset() {
        return lastOffset() + 1;
    }
}
