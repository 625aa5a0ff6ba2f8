package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.TransactionErrors;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.EndTxnResponse;

/**
 * EndTxn (v0-5): commits or aborts the producer's transaction in one store operation, markers,
 * offsets and outcome together, so the answer means the transaction is complete. Only clients of
 * transaction version 2 send v5 (KIP-890): the end then bumps the producer's epoch, and the response
 * carries the producer id and epoch to continue with. Blocking.
 */
final class EndTxnApi implements KafkaApi<EndTxnRequestData, EndTxnResponseData> {

    private static final short FIRST_VERSION_OF_TRANSACTION_VERSION_2 = 5;

    private final TransactionCoordinator coordinator;

    EndTxnApi(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<EndTxnResponseData> handle(RequestContext context, EndTxnRequestData request) {
        short version = context.apiVersion();
        TransactionOutcome outcome;
        try {
            outcome = coordinator.endTransaction(
                    request.transactionalId(),
                    Producers.of(request.producerId(), request.producerEpoch()),
                    request.committed(),
                    version >= FIRST_VERSION_OF_TRANSACTION_VERSION_2);
        } catch (RuntimeException e) {
            throw TransactionErrors.failure(e);
        }
        EndTxnResponseData response = new EndTxnResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(
                        TransactionErrors.of(outcome, ApiKeys.END_TXN, version).code());
        if (outcome instanceof TransactionOutcome.Done done) {
            response.setProducerId(done.producer().producerId())
                    .setProducerEpoch(done.producer().epoch());
        }
        return CompletableFuture.completedFuture(response);
    }

    @Override
    public Map<Errors, Integer> errorCounts(EndTxnResponseData response) {
        return new EndTxnResponse(response).errorCounts();
    }
}
