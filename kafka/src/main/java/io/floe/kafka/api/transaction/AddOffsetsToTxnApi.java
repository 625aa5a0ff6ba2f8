package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.TransactionErrors;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;

/**
 * AddOffsetsToTxn (v0-4): begins the producer's transaction when none is open, so that its
 * TxnOffsetCommit for the group can follow (Kafka adds the group's offsets partition; Floe keeps
 * pending offsets in the transaction's row). Blocking.
 */
final class AddOffsetsToTxnApi implements KafkaApi<AddOffsetsToTxnRequestData, AddOffsetsToTxnResponseData> {

    private final TransactionCoordinator coordinator;

    AddOffsetsToTxnApi(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<AddOffsetsToTxnResponseData> handle(
            RequestContext context, AddOffsetsToTxnRequestData request) {
        TransactionOutcome outcome;
        try {
            outcome = coordinator.addOffsets(
                    request.transactionalId(),
                    Producers.of(request.producerId(), request.producerEpoch()),
                    request.groupId());
        } catch (RuntimeException e) {
            throw TransactionErrors.failure(e);
        }
        Errors error = TransactionErrors.of(outcome, ApiKeys.ADD_OFFSETS_TO_TXN, context.apiVersion());
        return CompletableFuture.completedFuture(
                new AddOffsetsToTxnResponseData().setThrottleTimeMs(0).setErrorCode(error.code()));
    }

    @Override
    public Map<Errors, Integer> errorCounts(AddOffsetsToTxnResponseData response) {
        return new AddOffsetsToTxnResponse(response).errorCounts();
    }
}
