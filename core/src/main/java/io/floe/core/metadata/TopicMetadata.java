package io.floe.core.metadata;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.core.topic.UnknownTopicException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The metadata role of topics: their names, ids, partition counts and config overrides. Follows the
 * {@linkplain io.floe.core.metadata package contract}; each method's kind is its {@link MetadataOperation}.
 */
public interface TopicMetadata {

    /** Creates a topic with a fresh id and empty logs. Fenced (the name must be free). */
    Topic createTopic(NewTopic topic) throws TopicExistsException;

    /**
     * Deletes a topic with its partitions, batch rows and producer state. Objects that held only
     * its batches lose their last reference; deleting them is the cleanup's job. Fenced (the topic
     * must exist).
     */
    void deleteTopic(String name) throws UnknownTopicException;

    /**
     * Raises the partition count to {@code totalCount}; new partitions start empty. Fenced (the count
     * must grow).
     */
    Topic createPartitions(String name, int totalCount) throws UnknownTopicException, InvalidPartitionsException;

    /** Replaces the topic's config overrides with {@code configs}. Idempotent. */
    Topic setTopicConfigs(String name, Map<String, String> configs) throws UnknownTopicException;

    Optional<Topic> topic(String name);

    /** All topics, by name. */
    List<Topic> topics();
}
