package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.agent.fetch.OffsetLookup;
import io.floe.agent.fetch.TimestampedOffset;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/**
 * ListOffsets (v1-11): earliest (-2, and earliest-local -4), latest (-1), max timestamp (-3) and by
 * timestamp. Floe has no local/remote split, so last-tiered (-5) and earliest-pending-upload (-6)
 * find no offset (-1), as Kafka answers for topics without tiered storage. With isolation level 1
 * (read committed) latest is the last stable offset, and a timestamp look-up that finds an offset at
 * or above it finds none (-1), as Kafka answers. Runs on the blocking executor: lookups may read the
 * stores.
 */
final class ListOffsetsApi implements KafkaApi<ListOffsetsRequestData, ListOffsetsResponseData> {

    static final long LATEST = -1;
    static final long EARLIEST = -2;
    static final long MAX_TIMESTAMP = -3;
    static final long EARLIEST_LOCAL = -4;
    static final long LATEST_TIERED = -5;
    static final long EARLIEST_PENDING_UPLOAD = -6;
    private static final long NONE = -1;
    private static final byte READ_COMMITTED = 1;

    private final Agent agent;

    ListOffsetsApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(ListOffsetsResponseData response) {
        return new ListOffsetsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<ListOffsetsResponseData> handle(RequestContext context, ListOffsetsRequestData request) {
        return CompletableFuture.completedFuture(respond(request, context.apiVersion()));
    }

    private ListOffsetsResponseData respond(ListOffsetsRequestData request, short version) {
        List<ListOffsetsTopicResponse> topics = new ArrayList<>(request.topics().size());
        for (ListOffsetsTopic requested : request.topics()) {
            Optional<Topic> topic = findQuietly(requested.name());
            List<ListOffsetsPartitionResponse> partitions =
                    new ArrayList<>(requested.partitions().size());
            for (ListOffsetsPartition partition : requested.partitions()) {
                partitions.add(lookup(
                        requested.name(), topic, partition, version, request.isolationLevel() == READ_COMMITTED));
            }
            topics.add(new ListOffsetsTopicResponse().setName(requested.name()).setPartitions(partitions));
        }
        return new ListOffsetsResponseData().setThrottleTimeMs(0).setTopics(topics);
    }

    private Optional<Topic> findQuietly(String name) {
        try {
            return agent.topics().find(name);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private ListOffsetsPartitionResponse lookup(
            String name, Optional<Topic> topic, ListOffsetsPartition request, short version, boolean readCommitted) {
        ListOffsetsPartitionResponse response =
                new ListOffsetsPartitionResponse().setPartitionIndex(request.partitionIndex());
        if (topic.isEmpty() || !topic.get().hasPartition(request.partitionIndex())) {
            return response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                    .setOffset(NONE)
                    .setTimestamp(NONE);
        }
        TopicPartition topicPartition = new TopicPartition(name, request.partitionIndex());
        try {
            TimestampedOffset found = offsetFor(topicPartition, request.timestamp(), readCommitted);
            response.setErrorCode(Errors.NONE.code()).setOffset(found.offset()).setTimestamp(found.timestamp());
            // The leader epoch exists from v4 on, and Floe's partitions never change epoch.
            return version >= 4 && found.offset() != NONE ? response.setLeaderEpoch(0) : response;
        } catch (RuntimeException e) {
            return response.setErrorCode(KafkaErrors.errorOf(e).code())
                    .setOffset(NONE)
                    .setTimestamp(NONE);
        }
    }

    private TimestampedOffset offsetFor(TopicPartition topicPartition, long timestamp, boolean readCommitted) {
        OffsetLookup offsets = agent.offsets();
        TimestampedOffset none = new TimestampedOffset(NONE, NONE);
        if (timestamp == EARLIEST || timestamp == EARLIEST_LOCAL) {
            LogOffsets markers = offsets.offsets(topicPartition);
            return new TimestampedOffset(markers.logStartOffset(), NONE);
        } else if (timestamp == LATEST) {
            LogOffsets markers = offsets.offsets(topicPartition);
            return new TimestampedOffset(readCommitted ? markers.lastStableOffset() : markers.highWatermark(), NONE);
        } else if (timestamp == LATEST_TIERED || timestamp == EARLIEST_PENDING_UPLOAD) {
            return none;
        }
        Optional<TimestampedOffset> found = timestamp == MAX_TIMESTAMP
                ? offsets.maxTimestamp(topicPartition)
                : offsets.firstOffsetAtOrAfter(topicPartition, timestamp);
        if (readCommitted && found.isPresent()) {
            long stable = offsets.offsets(topicPartition).lastStableOffset();
            found = found.filter(offset -> offset.offset() < stable);
        }
        return found.orElse(none);
    }
}
