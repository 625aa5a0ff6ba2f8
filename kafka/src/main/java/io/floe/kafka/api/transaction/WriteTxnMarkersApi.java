package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import io.floe.kafka.error.TransactionErrors;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;

/**
 * WriteTxnMarkers (v1): in Floe only an operator sends it (the Admin client's abortTransaction, for a
 * hanging transaction): each partition's marker ends the producer's transaction there, if one is open
 * at an epoch no newer than the marker's; a newer producer epoch is INVALID_PRODUCER_EPOCH, as a Kafka
 * partition leader answers. The coordinator's own ends write their markers in the store, so it never
 * sends this. v2 (the marker's transaction version, KIP-1228) is not served. Blocking.
 */
final class WriteTxnMarkersApi implements KafkaApi<WriteTxnMarkersRequestData, WriteTxnMarkersResponseData> {

    private static final short WRITE_TXN_MARKERS_VERSION = 1;

    private final TransactionCoordinator coordinator;

    WriteTxnMarkersApi(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<WriteTxnMarkersResponseData> handle(
            RequestContext context, WriteTxnMarkersRequestData request) {
        Map<Long, Map<org.apache.kafka.common.TopicPartition, Errors>> errors = new HashMap<>();
        for (WritableTxnMarker marker : request.markers()) {
            Map<org.apache.kafka.common.TopicPartition, Errors> partitions =
                    errors.computeIfAbsent(marker.producerId(), id -> new HashMap<>());
            for (WritableTxnMarkerTopic topic : marker.topics()) {
                for (int index : topic.partitionIndexes()) {
                    partitions.put(
                            new org.apache.kafka.common.TopicPartition(topic.name(), index),
                            write(marker, topic.name(), index));
                }
            }
        }
        return CompletableFuture.completedFuture(new WriteTxnMarkersResponse(errors).data());
    }

    private Errors write(WritableTxnMarker marker, String topic, int partition) {
        if (partition < 0) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        try {
            ProducerEpoch producer = Producers.of(marker.producerId(), marker.producerEpoch());
            return TransactionErrors.of(
                    coordinator.writeMarker(
                            new TopicPartition(topic, partition),
                            producer,
                            marker.transactionResult(),
                            marker.coordinatorEpoch()),
                    ApiKeys.WRITE_TXN_MARKERS,
                    WRITE_TXN_MARKERS_VERSION);
        } catch (RuntimeException e) {
            return KafkaErrors.errorOf(e);
        }
    }

    @Override
    public Map<Errors, Integer> errorCounts(WriteTxnMarkersResponseData response) {
        return new WriteTxnMarkersResponse(response).errorCounts();
    }
}
