package io.floe.core.group;

import java.util.Objects;

/**
 * An offset a consumer group committed for one partition.
 *
 * @param offset the next offset the group will consume (Kafka's committed offset)
 * @param leaderEpoch the leader epoch of the record before {@code offset}, or {@link #NO_LEADER_EPOCH}
 * @param metadata the client's free-form string, empty when it sent none
 * @param commitTimestampMs when the store accepted the commit, epoch milliseconds; retention counts from here
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs) {

    /** The leader epoch of a commit that carries none. */
    public static final int NO_LEADER_EPOCH = -1;

    public CommittedOffset {
        Objects.requireNonNull(metadata, "metadata");
        if (leaderEpoch < NO_LEADER_EPOCH) {
            throw new IllegalArgumentException("leader epoch must be >= -1, got " + leaderEpoch);
        }
    }
}
