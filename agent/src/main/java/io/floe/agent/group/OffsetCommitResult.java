package io.floe.agent.group;

import io.floe.core.log.TopicPartition;
import java.util.Map;

/**
 * The outcome of an OffsetCommit.
 *
 * @param error a failure that applies to every partition (the member is fenced, for example), or
 *     {@link GroupError#NONE}
 * @param partitions the outcome per partition when {@code error} is NONE; empty otherwise
 */
public record OffsetCommitResult(GroupError error, Map<TopicPartition, GroupError> partitions) {

    public OffsetCommitResult {
        partitions = Map.copyOf(partitions);
    }

    static OffsetCommitResult failed(GroupError error) {
        return new OffsetCommitResult(error, Map.of());
    }
}
