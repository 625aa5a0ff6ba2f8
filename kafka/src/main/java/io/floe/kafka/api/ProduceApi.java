package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.agent.produce.InvalidBatchException;
import io.floe.agent.produce.ProducerWindow;
import io.floe.agent.topic.Topics;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import io.floe.kafka.error.TransactionErrors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidRequiredAcksException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Produce (v3-13; topic ids from v13). Hands each partition's records to the agent's produce pipeline
 * synchronously, on the event loop, in request order, so batches of one connection keep their order;
 * the response completes when every partition has its outcome. acks=0 gets no response. Each
 * connection's requests that await an answer are counted in its {@link ProducerWindow}, so the
 * pipeline can flush early once every producer waits on it. A request with a transactional id may
 * carry transactional batches, which the commit checks against the producer's transaction: from v12
 * (sent only by clients of transaction version 2, KIP-890) a batch joins the transaction, before it
 * its partition must have been added (AddPartitionsToTxn). A transactional batch without a
 * transactional id and any control batch are INVALID_RECORD.
 */
final class ProduceApi implements KafkaApi<ProduceRequestData, ProduceResponseData> {

    private static final short FIRST_VERSION_WITH_TOPIC_IDS = 13;
    private static final short FIRST_VERSION_OF_TRANSACTION_VERSION_2 = 12;

    private final Agent agent;

    ProduceApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public boolean expectsResponse(ProduceRequestData request) {
        return request.acks() != 0;
    }

    @Override
    public Map<Errors, Integer> errorCounts(ProduceResponseData response) {
        return new ProduceResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<ProduceResponseData> handle(RequestContext context, ProduceRequestData request) {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(0);
        Optional<ApiException> refusal = refusal(request);
        short version = context.apiVersion();
        boolean byId = version >= FIRST_VERSION_WITH_TOPIC_IDS;
        TransactionalAppend transactional = request.transactionalId() == null
                ? TransactionalAppend.NONE
                : version >= FIRST_VERSION_OF_TRANSACTION_VERSION_2
                        ? TransactionalAppend.JOINS_TRANSACTION
                        : TransactionalAppend.IN_TRANSACTION;
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (TopicProduceData topicData : request.topicData()) {
            TopicProduceResponse topicResponse = new TopicProduceResponse();
            if (byId) {
                topicResponse.setTopicId(topicData.topicId());
            } else {
                topicResponse.setName(topicData.name());
            }
            TopicOutcome topic = refusal.map(TopicOutcome::failed).orElseGet(() -> resolve(topicData, byId));
            for (PartitionProduceData partitionData : topicData.partitionData()) {
                PartitionProduceResponse partition = new PartitionProduceResponse().setIndex(partitionData.index());
                topicResponse.partitionResponses().add(partition);
                append(topic, partitionData, partition, transactional, version).ifPresent(pending::add);
            }
            response.responses().add(topicResponse);
        }
        CompletableFuture<Void> outcomes = CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
        if (pending.isEmpty() || !expectsResponse(request)) {
            return outcomes.thenApply(done -> response);
        }
        // Counted for group commit only when the client waits for the answer, and taken off before it is sent.
        ProducerWindow window = context.connection().resource(ProducerWindow.class, agent.produce()::openWindow);
        window.requestBuffered();
        return outcomes.thenApply(done -> {
            window.requestAnswered();
            return response;
        });
    }

    private static Optional<ApiException> refusal(ProduceRequestData request) {
        if (request.transactionalId() != null && request.transactionalId().isEmpty()) {
            return Optional.of(new InvalidRequestException("the transactional id must not be empty"));
        }
        short acks = request.acks();
        if (acks != 0 && acks != 1 && acks != -1) {
            return Optional.of(new InvalidRequiredAcksException("acks must be -1, 0 or 1, got " + acks));
        }
        return Optional.empty();
    }

    private TopicOutcome resolve(TopicProduceData topicData, boolean byId) {
        Topics topics = agent.topics();
        try {
            if (byId) {
                Uuid id = topicData.topicId();
                return topics.find(TopicIds.toFloe(id))
                        .map(TopicOutcome::found)
                        .orElseGet(() -> TopicOutcome.failed(new UnknownTopicIdException("unknown topic id " + id)));
            }
            String name = topicData.name();
            Optional<String> invalid = Topics.validateName(name);
            if (invalid.isPresent()) {
                return TopicOutcome.failed(new InvalidTopicException(invalid.get()));
            }
            Optional<Topic> topic = topics.autoCreateEnabled() ? topics.findOrAutoCreate(name) : topics.find(name);
            return topic.map(TopicOutcome::found)
                    .orElseGet(
                            () -> TopicOutcome.failed(new UnknownTopicOrPartitionException("unknown topic " + name)));
        } catch (RuntimeException e) {
            return TopicOutcome.failed(KafkaErrors.toApiException(e));
        }
    }

    /** Starts the append of one partition; the future (if any) fills {@code partition} when it completes. */
    private Optional<CompletableFuture<?>> append(
            TopicOutcome topic,
            PartitionProduceData data,
            PartitionProduceResponse partition,
            TransactionalAppend transactional,
            short version) {
        if (topic.error() != null) {
            fail(partition, topic.error());
            return Optional.empty();
        }
        if (!topic.topic().hasPartition(data.index())) {
            fail(
                    partition,
                    new UnknownTopicOrPartitionException("topic "
                            + topic.topic().name() + " has " + topic.topic().partitionCount() + " partitions, not "
                            + data.index()));
            return Optional.empty();
        }
        if (!(data.records() instanceof MemoryRecords records)) {
            fail(
                    partition,
                    new InvalidRecordException("no records for partition " + data.index() + " of topic "
                            + topic.topic().name()));
            return Optional.empty();
        }
        ByteBuffer buffer = records.buffer();
        try {
            return Optional.of(agent.produce()
                    .append(topic.topic(), data.index(), buffer, transactional)
                    .handle((result, failure) -> {
                        complete(partition, result, failure, version);
                        return null;
                    }));
        } catch (InvalidBatchException e) {
            fail(partition, KafkaErrors.forInvalidBatch(e));
        } catch (RuntimeException e) {
            fail(partition, KafkaErrors.toApiException(e));
        }
        return Optional.empty();
    }

    private static void complete(
            PartitionProduceResponse partition, AppendResult result, Throwable failure, short version) {
        if (failure != null) {
            fail(partition, KafkaErrors.toApiException(failure));
        } else if (result instanceof AppendResult.Appended appended) {
            succeed(partition, appended.baseOffset(), appended.logStartOffset(), appended.logAppendTimeMs());
        } else if (result instanceof AppendResult.Duplicate duplicate && duplicate.offsetKnown()) {
            succeed(partition, duplicate.baseOffset(), duplicate.logStartOffset(), -1);
        } else if (result instanceof AppendResult.Duplicate) {
            // Kafka's answer for a retry older than the remembered batches: the producer completes
            // the batch as sent, with an unknown offset.
            fail(
                    partition,
                    Errors.DUPLICATE_SEQUENCE_NUMBER.exception(
                            "batch was stored by an earlier attempt; its offset is no longer known"));
        } else if (result instanceof AppendResult.Failed failed) {
            Errors error = switch (failed.error()) {
                case UNKNOWN_TOPIC_OR_PARTITION -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
                case OUT_OF_ORDER_SEQUENCE -> Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
                case PRODUCER_FENCED, INVALID_TXN_STATE ->
                    TransactionErrors.ofTransactionalAppend(failed.error(), version);
                // Retriable: the idempotent retry finds the batch if the commit did apply after all.
                case NOT_COMMITTED -> Errors.KAFKA_STORAGE_ERROR;
            };
            fail(partition, error.exception(failed.message()));
        }
    }

    private static void succeed(
            PartitionProduceResponse partition, long baseOffset, long logStartOffset, long logAppendTimeMs) {
        partition
                .setErrorCode(Errors.NONE.code())
                .setBaseOffset(baseOffset)
                .setLogStartOffset(logStartOffset)
                .setLogAppendTimeMs(logAppendTimeMs);
    }

    private static void fail(PartitionProduceResponse partition, ApiException error) {
        partition
                .setErrorCode(Errors.forException(error).code())
                .setErrorMessage(error.getMessage())
                .setBaseOffset(-1)
                .setLogStartOffset(-1)
                .setLogAppendTimeMs(-1);
    }

    /** A produce request's topic, or why its partitions fail. */
    private record TopicOutcome(Topic topic, ApiException error) {

        static TopicOutcome found(Topic topic) {
            return new TopicOutcome(topic, null);
        }

        static TopicOutcome failed(ApiException error) {
            return new TopicOutcome(null, error);
        }
    }
}
