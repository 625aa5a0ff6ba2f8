package io.floe.kafka.api.admin;

import io.floe.agent.Agent;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeProducersResponse;

/**
 * DescribeProducers (v0): the producers with state on each partition, from the metadata store, with
 * the first offset of each one's open transaction there (-1 when none). Floe's transaction
 * coordinator has no epochs (its state is in the store, not in a coordinator's memory), so a producer
 * in a transaction shows coordinator epoch 0, the one the Admin client's abortTransaction then sends
 * back in WriteTxnMarkers, and -1 otherwise, as Kafka shows idempotent producers.
 */
final class DescribeProducersApi implements KafkaApi<DescribeProducersRequestData, DescribeProducersResponseData> {

    private static final int NO_COORDINATOR_EPOCH = -1;
    private static final int COORDINATOR_EPOCH = 0;

    private final Agent agent;

    DescribeProducersApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DescribeProducersResponseData response) {
        return new DescribeProducersResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<DescribeProducersResponseData> handle(
            RequestContext context, DescribeProducersRequestData request) {
        DescribeProducersResponseData response = new DescribeProducersResponseData().setThrottleTimeMs(0);
        for (TopicRequest topic : request.topics()) {
            TopicResponse result = new TopicResponse().setName(topic.name());
            for (int partition : topic.partitionIndexes()) {
                result.partitions().add(describe(topic.name(), partition));
            }
            response.topics().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }

    private PartitionResponse describe(String name, int partition) {
        PartitionResponse response = new PartitionResponse().setPartitionIndex(partition);
        try {
            Topic topic = agent.topics().find(name).orElseThrow(() -> new UnknownTopicException(name));
            if (!topic.hasPartition(partition)) {
                throw new UnknownTopicException(name + "-" + partition);
            }
            List<ActiveProducer> producers = agent.metadata().reads().producers(new TopicPartition(name, partition));
            return response.setErrorCode(Errors.NONE.code())
                    .setActiveProducers(producers.stream()
                            .map(DescribeProducersApi::toState)
                            .toList());
        } catch (RuntimeException e) {
            ApiException error = KafkaErrors.toApiException(e);
            return response.setErrorCode(Errors.forException(error).code()).setErrorMessage(error.getMessage());
        }
    }

    private static ProducerState toState(ActiveProducer producer) {
        return new ProducerState()
                .setProducerId(producer.producerId())
                .setProducerEpoch(producer.producerEpoch())
                .setLastSequence(producer.lastSequence())
                .setLastTimestamp(producer.lastTimestamp())
                .setCoordinatorEpoch(
                        producer.currentTxnStartOffset() == ActiveProducer.NO_TRANSACTION
                                ? NO_COORDINATOR_EPOCH
                                : COORDINATOR_EPOCH)
                .setCurrentTxnStartOffset(producer.currentTxnStartOffset());
    }
}
