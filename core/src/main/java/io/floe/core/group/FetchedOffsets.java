package io.floe.core.group;

import io.floe.core.log.TopicPartition;
import java.util.Map;
import java.util.Set;

/**
 * A group's offsets as OffsetFetch sees them, read at one point in time: what it committed, and the
 * partitions whose offsets are pending in an open transaction (their committed offset may be replaced
 * when it ends, so a consumer that requires stable offsets must not start from it).
 */
public record FetchedOffsets(Map<TopicPartition, CommittedOffset> committed, Set<TopicPartition> pending) {

    public FetchedOffsets {
        committed = Map.copyOf(committed);
        pending = Set.copyOf(pending);
    }
}
