package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.kafka.error.TransactionErrors;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdResponse;

/**
 * InitProducerId (v0-5). Without a transactional id (an idempotent producer): a fresh producer id
 * from the metadata store with epoch 0, also when the producer asks to bump the epoch of the id it
 * has (KIP-360): a new id resets its sequences just as well. With one: the transaction coordinator's
 * next epoch of the id's producer, fencing earlier epochs and aborting a transaction left open; from
 * v3 a producer recovering its own id names it (KIP-360), and one that is no longer current is
 * PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before v4, which does not know it). A timeout above
 * transaction.max.timeout.ms is INVALID_TRANSACTION_TIMEOUT. v6 (two-phase commit, unstable in Kafka
 * 4.4) is not served.
 */
final class InitProducerIdApi implements KafkaApi<InitProducerIdRequestData, InitProducerIdResponseData> {

    private static final long NO_PRODUCER_ID = -1;
    private static final short NO_PRODUCER_EPOCH = -1;
    private static final short FIRST_VERSION_WITH_PRODUCER = 3;

    private final Agent agent;

    InitProducerIdApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(InitProducerIdResponseData response) {
        return new InitProducerIdResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<InitProducerIdResponseData> handle(
            RequestContext context, InitProducerIdRequestData request) {
        if (request.transactionalId() != null) {
            return CompletableFuture.completedFuture(initTransactional(request, context.apiVersion()));
        }
        return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code())
                .setProducerId(agent.metadata().appends().allocateProducerId())
                .setProducerEpoch((short) 0));
    }

    private InitProducerIdResponseData initTransactional(InitProducerIdRequestData request, short version) {
        ProducerEpoch expected =
                version >= FIRST_VERSION_WITH_PRODUCER && request.producerId() >= 0 && request.producerEpoch() >= 0
                        ? new ProducerEpoch(request.producerId(), request.producerEpoch())
                        : null;
        TransactionOutcome outcome;
        try {
            outcome = agent.transactions()
                    .initProducer(request.transactionalId(), request.transactionTimeoutMs(), expected);
        } catch (RuntimeException e) {
            throw TransactionErrors.failure(e);
        }
        InitProducerIdResponseData response = new InitProducerIdResponseData().setThrottleTimeMs(0);
        if (outcome instanceof TransactionOutcome.Done done) {
            return response.setErrorCode(Errors.NONE.code())
                    .setProducerId(done.producer().producerId())
                    .setProducerEpoch(done.producer().epoch());
        }
        return response.setErrorCode(TransactionErrors.of(outcome, ApiKeys.INIT_PRODUCER_ID, version)
                        .code())
                .setProducerId(NO_PRODUCER_ID)
                .setProducerEpoch(NO_PRODUCER_EPOCH);
    }
}
