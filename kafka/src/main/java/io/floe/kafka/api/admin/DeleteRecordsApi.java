package io.floe.kafka.api.admin;

import io.floe.agent.Agent;
import io.floe.core.config.TopicConfigs;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteRecordsResponse;

/**
 * DeleteRecords (v0-2): moves each partition's log start up to the given offset (-1: the high
 * watermark) and answers the log start after it as the low watermark. Never moves it back; an offset
 * past the high watermark is OFFSET_OUT_OF_RANGE; topics whose cleanup.policy lacks {@code delete}
 * refuse with POLICY_VIOLATION, as in Kafka. The request's timeout is not needed: the change is
 * durable in the metadata store when answered.
 */
final class DeleteRecordsApi implements KafkaApi<DeleteRecordsRequestData, DeleteRecordsResponseData> {

    /** The offset that means "up to the high watermark". */
    private static final long HIGH_WATERMARK = -1;

    private static final long NO_LOW_WATERMARK = -1;

    private final Agent agent;

    DeleteRecordsApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DeleteRecordsResponseData response) {
        return new DeleteRecordsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<DeleteRecordsResponseData> handle(RequestContext context, DeleteRecordsRequestData request) {
        DeleteRecordsResponseData response = new DeleteRecordsResponseData().setThrottleTimeMs(0);
        for (DeleteRecordsTopic topic : request.topics()) {
            DeleteRecordsTopicResult result = new DeleteRecordsTopicResult().setName(topic.name());
            for (DeleteRecordsPartition partition : topic.partitions()) {
                result.partitions().add(delete(topic.name(), partition));
            }
            response.topics().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }

    private DeleteRecordsPartitionResult delete(String name, DeleteRecordsPartition request) {
        DeleteRecordsPartitionResult result = new DeleteRecordsPartitionResult()
                .setPartitionIndex(request.partitionIndex())
                .setLowWatermark(NO_LOW_WATERMARK);
        try {
            Topic topic = agent.topics().find(name).orElseThrow(() -> new UnknownTopicException(name));
            if (!topic.hasPartition(request.partitionIndex())) {
                return result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            }
            if (!deletable(topic)) {
                return result.setErrorCode(Errors.POLICY_VIOLATION.code());
            }
            TopicPartition partition = new TopicPartition(name, request.partitionIndex());
            long before = request.offset() == HIGH_WATERMARK
                    ? agent.offsets().offsets(partition).highWatermark()
                    : request.offset();
            return result.setErrorCode(Errors.NONE.code())
                    .setLowWatermark(agent.offsets().deleteRecords(partition, before));
        } catch (OffsetOutOfRangeException e) {
            return result.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
        } catch (RuntimeException e) {
            return result.setErrorCode(KafkaErrors.errorOf(e).code());
        }
    }

    /** Kafka deletes records only from topics whose cleanup.policy includes delete. */
    private boolean deletable(Topic topic) {
        String policy = agent.topics().configs().value(topic, TopicConfigs.CLEANUP_POLICY);
        return policy != null
                && Arrays.stream(policy.split(",")).map(String::trim).anyMatch("delete"::equals);
    }
}
