package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.TransactionErrors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;

/**
 * AddPartitionsToTxn (v0-5): one transaction up to v3 (producers), a batch from v4 (in Kafka, brokers
 * verifying a produce), each entry either adding its partitions or, with VerifyOnly, answering from
 * the stored transaction whether they are in it (never adding: TRANSACTION_ABORTABLE for one that is
 * not, INVALID_TXN_STATE at v4). When a partition does not exist none is added: it is
 * UNKNOWN_TOPIC_OR_PARTITION (clients retry) and the others OPERATION_NOT_ATTEMPTED. Blocking.
 */
final class AddPartitionsToTxnApi implements KafkaApi<AddPartitionsToTxnRequestData, AddPartitionsToTxnResponseData> {

    private static final short FIRST_BATCHED_VERSION = 4;

    private final TransactionCoordinator coordinator;

    AddPartitionsToTxnApi(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<AddPartitionsToTxnResponseData> handle(
            RequestContext context, AddPartitionsToTxnRequestData request) {
        short version = context.apiVersion();
        AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData().setThrottleTimeMs(0);
        if (version < FIRST_BATCHED_VERSION) {
            Map<org.apache.kafka.common.TopicPartition, Errors> errors;
            try {
                errors = add(
                        request.v3AndBelowTransactionalId(),
                        Producers.of(request.v3AndBelowProducerId(), request.v3AndBelowProducerEpoch()),
                        partitions(request.v3AndBelowTopics()),
                        version);
            } catch (RuntimeException e) {
                throw TransactionErrors.failure(e);
            }
            AddPartitionsToTxnResult result = AddPartitionsToTxnResponse.resultForTransaction(
                    AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, errors);
            return CompletableFuture.completedFuture(response.setResultsByTopicV3AndBelow(result.topicResults()));
        }
        AddPartitionsToTxnResultCollection results = new AddPartitionsToTxnResultCollection();
        for (AddPartitionsToTxnTransaction transaction : request.transactions()) {
            results.add(AddPartitionsToTxnResponse.resultForTransaction(
                    transaction.transactionalId(), answer(transaction, version)));
        }
        return CompletableFuture.completedFuture(
                response.setErrorCode(Errors.NONE.code()).setResultsByTransaction(results));
    }

    /** One entry of a batched request; a failure answers each of its partitions with the error. */
    private Map<org.apache.kafka.common.TopicPartition, Errors> answer(
            AddPartitionsToTxnTransaction transaction, short version) {
        List<org.apache.kafka.common.TopicPartition> requested = partitions(transaction.topics());
        try {
            ProducerEpoch producer = Producers.of(transaction.producerId(), transaction.producerEpoch());
            return transaction.verifyOnly()
                    ? verify(transaction.transactionalId(), producer, requested, version)
                    : add(transaction.transactionalId(), producer, requested, version);
        } catch (RuntimeException e) {
            return all(requested, Errors.forException(TransactionErrors.failure(e)));
        }
    }

    private Map<org.apache.kafka.common.TopicPartition, Errors> add(
            String transactionalId,
            ProducerEpoch producer,
            List<org.apache.kafka.common.TopicPartition> requested,
            short version) {
        List<TopicPartition> partitions = new ArrayList<>();
        Map<org.apache.kafka.common.TopicPartition, Errors> invalid = new LinkedHashMap<>();
        for (org.apache.kafka.common.TopicPartition partition : requested) {
            if (partition.partition() < 0) {
                invalid.put(partition, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            } else {
                partitions.add(new TopicPartition(partition.topic(), partition.partition()));
            }
        }
        if (!invalid.isEmpty()) {
            return notAttemptedBut(requested, invalid);
        }
        TransactionOutcome outcome = coordinator.addPartitions(transactionalId, producer, partitions);
        if (outcome instanceof TransactionOutcome.UnknownPartitions unknown) {
            Map<org.apache.kafka.common.TopicPartition, Errors> missing = new LinkedHashMap<>();
            unknown.partitions()
                    .forEach(p -> missing.put(
                            new org.apache.kafka.common.TopicPartition(p.topic(), p.partition()),
                            Errors.UNKNOWN_TOPIC_OR_PARTITION));
            return notAttemptedBut(requested, missing);
        }
        return all(requested, TransactionErrors.of(outcome, ApiKeys.ADD_PARTITIONS_TO_TXN, version));
    }

    private Map<org.apache.kafka.common.TopicPartition, Errors> verify(
            String transactionalId,
            ProducerEpoch producer,
            List<org.apache.kafka.common.TopicPartition> requested,
            short version) {
        Optional<TransactionDescription> stored = coordinator.describe(transactionalId);
        if (stored.isEmpty() || stored.get().producer().producerId() != producer.producerId()) {
            return all(requested, Errors.INVALID_PRODUCER_ID_MAPPING);
        } else if (stored.get().producer().epoch() != producer.epoch()) {
            return all(requested, Errors.PRODUCER_FENCED);
        }
        Errors notIn = TransactionErrors.notInTransaction(version);
        boolean open = stored.get().state() == TransactionState.ONGOING;
        Map<org.apache.kafka.common.TopicPartition, Errors> errors = new LinkedHashMap<>();
        for (org.apache.kafka.common.TopicPartition partition : requested) {
            boolean in = open
                    && partition.partition() >= 0
                    && stored.get().partitions().contains(new TopicPartition(partition.topic(), partition.partition()));
            errors.put(partition, in ? Errors.NONE : notIn);
        }
        return errors;
    }

    private static List<org.apache.kafka.common.TopicPartition> partitions(AddPartitionsToTxnTopicCollection topics) {
        List<org.apache.kafka.common.TopicPartition> partitions = new ArrayList<>();
        for (AddPartitionsToTxnTopic topic : topics) {
            topic.partitions()
                    .forEach(index -> partitions.add(new org.apache.kafka.common.TopicPartition(topic.name(), index)));
        }
        return partitions;
    }

    private static Map<org.apache.kafka.common.TopicPartition, Errors> all(
            List<org.apache.kafka.common.TopicPartition> partitions, Errors error) {
        Map<org.apache.kafka.common.TopicPartition, Errors> errors = new LinkedHashMap<>();
        partitions.forEach(partition -> errors.put(partition, error));
        return errors;
    }

    /** {@code failed} with their errors, every other partition OPERATION_NOT_ATTEMPTED. */
    private static Map<org.apache.kafka.common.TopicPartition, Errors> notAttemptedBut(
            List<org.apache.kafka.common.TopicPartition> partitions,
            Map<org.apache.kafka.common.TopicPartition, Errors> failed) {
        Map<org.apache.kafka.common.TopicPartition, Errors> errors = all(partitions, Errors.OPERATION_NOT_ATTEMPTED);
        errors.putAll(failed);
        return errors;
    }

    @Override
    public Map<Errors, Integer> errorCounts(AddPartitionsToTxnResponseData response) {
        return new AddPartitionsToTxnResponse(response).errorCounts();
    }
}
