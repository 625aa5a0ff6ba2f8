package io.floe.core.log;

/**
 * One aborted transaction of one producer in one partition: its records lie in
 * {@code [firstOffset, markerOffset)} and read-committed readers skip them (Kafka's fetch response
 * entry, with the marker's offset for readers that filter themselves).
 */
public record AbortedTransaction(long producerId, long firstOffset, long markerOffset) {

    public AbortedTransaction {
        if (firstOffset > markerOffset) {
            throw new IllegalArgumentException("firstOffset " + firstOffset + " > markerOffset " + markerOffset);
        }
    }

    /** Whether the aborted range meets {@code [fromOffset, toOffset)}. */
    public boolean overlaps(long fromOffset, long toOffset) {
        return markerOffset >= fromOffset && firstOffset < toOffset;
    }
}
