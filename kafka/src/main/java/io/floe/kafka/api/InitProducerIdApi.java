package io.floe.kafka.api;

import io.floe.agent.Agent;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdResponse;

/**
 * InitProducerId (v0-5) for idempotent producers: a fresh producer id from the metadata store with
 * epoch 0, also when a producer asks to bump the epoch of the id it has (KIP-360): a new id resets its
 * sequences just as well. Transactional ids are refused with TRANSACTIONAL_ID_AUTHORIZATION_FAILED
 * (Floe has no transaction coordinator yet); v6 (two-phase commit, unstable in Kafka 4.4) is not served.
 */
final class InitProducerIdApi implements KafkaApi<InitProducerIdRequestData, InitProducerIdResponseData> {

    private static final long NO_PRODUCER_ID = -1;
    private static final short NO_PRODUCER_EPOCH = -1;

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
            return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                    .setThrottleTimeMs(0)
                    .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
                    .setProducerId(NO_PRODUCER_ID)
                    .setProducerEpoch(NO_PRODUCER_EPOCH));
        }
        return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code())
                .setProducerId(agent.metadata().appends().allocateProducerId())
                .setProducerEpoch((short) 0));
    }
}
