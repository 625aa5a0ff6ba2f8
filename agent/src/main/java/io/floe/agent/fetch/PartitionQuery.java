package io.floe.agent.fetch;

import io.floe.core.log.TopicPartition;

/** One partition of a fetch: where to start and at most how many bytes to return for it. */
public record PartitionQuery(TopicPartition topicPartition, long fetchOffset, int maxBytes) {}
