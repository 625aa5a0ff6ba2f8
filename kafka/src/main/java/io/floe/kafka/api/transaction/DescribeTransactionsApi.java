package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.transaction.TransactionDescription;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.TransactionErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicDataCollection;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;

/**
 * DescribeTransactions (v0): each transactional id as the store holds it (state, producer, timeout,
 * start time, the open transaction's partitions); TRANSACTIONAL_ID_NOT_FOUND for an id never seen.
 * Any agent answers: the state is in the store. Blocking.
 */
final class DescribeTransactionsApi
        implements KafkaApi<DescribeTransactionsRequestData, DescribeTransactionsResponseData> {

    private final TransactionCoordinator coordinator;

    DescribeTransactionsApi(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<DescribeTransactionsResponseData> handle(
            RequestContext context, DescribeTransactionsRequestData request) {
        List<TransactionState> states = new ArrayList<>();
        for (String transactionalId : request.transactionalIds()) {
            states.add(describe(transactionalId));
        }
        return CompletableFuture.completedFuture(
                new DescribeTransactionsResponseData().setThrottleTimeMs(0).setTransactionStates(states));
    }

    private TransactionState describe(String transactionalId) {
        TransactionState state = new TransactionState().setTransactionalId(transactionalId);
        Optional<TransactionDescription> stored;
        try {
            stored = coordinator.describe(transactionalId);
        } catch (RuntimeException e) {
            ApiException error = TransactionErrors.failure(e);
            return state.setErrorCode(Errors.forException(error).code());
        }
        if (stored.isEmpty()) {
            return state.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
        }
        TransactionDescription transaction = stored.get();
        return state.setErrorCode(Errors.NONE.code())
                .setTransactionState(transaction.state().kafkaName())
                .setTransactionTimeoutMs(transaction.timeoutMs())
                .setTransactionStartTimeMs(transaction.startedAtMs())
                .setProducerId(transaction.producer().producerId())
                .setProducerEpoch(transaction.producer().epoch())
                .setTopics(topics(transaction));
    }

    private static TopicDataCollection topics(TransactionDescription transaction) {
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        transaction.partitions().stream()
                .sorted()
                .forEach(partition -> byTopic.computeIfAbsent(partition.topic(), t -> new ArrayList<>())
                        .add(partition.partition()));
        TopicDataCollection topics = new TopicDataCollection();
        byTopic.forEach((topic, partitions) ->
                topics.add(new TopicData().setTopic(topic).setPartitions(partitions)));
        return topics;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DescribeTransactionsResponseData response) {
        return new DescribeTransactionsResponse(response).errorCounts();
    }
}
