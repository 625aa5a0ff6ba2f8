package io.floe.kafka.api.admin;

import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;

/**
 * ListPartitionReassignments (v0): always none in progress. Floe partitions have no replicas to
 * reassign (agents share the stores), and Kafka leaves partitions without a reassignment out of the
 * answer whether or not they exist.
 */
final class ListPartitionReassignmentsApi
        implements KafkaApi<ListPartitionReassignmentsRequestData, ListPartitionReassignmentsResponseData> {

    @Override
    public Map<Errors, Integer> errorCounts(ListPartitionReassignmentsResponseData response) {
        return new ListPartitionReassignmentsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<ListPartitionReassignmentsResponseData> handle(
            RequestContext context, ListPartitionReassignmentsRequestData request) {
        return CompletableFuture.completedFuture(new ListPartitionReassignmentsResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code())
                .setErrorMessage(null)
                .setTopics(List.of()));
    }
}
