package io.floe.agent.group;

import io.floe.core.log.TopicPartition;
import java.util.Map;

/**
 * The outcome of an OffsetDelete.
 *
 * @param error a failure of the whole request (unknown group, members using a protocol whose
 *     subscriptions the coordinator cannot read), or {@link GroupError#NONE}
 * @param partitions the outcome per partition when {@code error} is NONE
 */
public record OffsetDeleteResult(GroupError error, Map<TopicPartition, GroupError> partitions) {

    public OffsetDeleteResult {
        partitions = Map.copyOf(partitions);
    }

    static OffsetDeleteResult failed(GroupError error) {
        return new OffsetDeleteResult(error, Map.of());
    }
}
