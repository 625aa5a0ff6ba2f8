package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupError;
import io.floe.agent.group.TransactionalCommitResult;
import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.TransactionErrors;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;

/**
 * TxnOffsetCommit (v0-6; topic ids from v6): a producer's offsets for a group, kept pending in its open
 * transaction until it ends. Routed to the group's coordinator, like OffsetCommit, because from v3 the
 * request carries the consumer's group metadata, checked against the group in the coordinator's memory
 * (a producer outside group management always passes), and the pending offsets are written only while
 * the coordinator's lease on the group still holds (NOT_COORDINATOR otherwise: the client looks the
 * coordinator up again). Clients of transaction version 2 send v5+ without
 * AddOffsetsToTxn (KIP-890): the store's pending commit begins the transaction itself. Errors the version's
 * clients know: GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH from v6, else ILLEGAL_GENERATION;
 * TRANSACTION_ABORTABLE from v4 for a transaction that is not open, else INVALID_TXN_STATE. Blocking.
 */
final class TxnOffsetCommitApi implements KafkaApi<TxnOffsetCommitRequestData, TxnOffsetCommitResponseData> {

    private static final short FIRST_VERSION_WITH_MEMBER = 3;
    /** The generation of a producer outside group management. */
    private static final int NO_GENERATION = -1;

    private final TransactionCoordinator transactions;
    private final GroupCoordinator groups;
    private final GroupTopics topics;
    private final Clock clock;

    TxnOffsetCommitApi(TransactionCoordinator transactions, GroupCoordinator groups, GroupTopics topics, Clock clock) {
        this.transactions = transactions;
        this.groups = groups;
        this.topics = topics;
        this.clock = clock;
    }

    @Override
    public CompletionStage<TxnOffsetCommitResponseData> handle(
            RequestContext context, TxnOffsetCommitRequestData request) {
        try {
            return CompletableFuture.completedFuture(respond(request, context.apiVersion()));
        } catch (RuntimeException e) {
            throw TransactionErrors.failure(e);
        }
    }

    private TxnOffsetCommitResponseData respond(TxnOffsetCommitRequestData request, short version) {
        boolean byId = TxnOffsetCommitResponse.useTopicIds(version);
        TxnOffsetCommitResponse.Builder response = TxnOffsetCommitResponse.newBuilder(byId);
        Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
        Map<TopicPartition, Uuid> ids = new HashMap<>();
        long nowMs = clock.millis();
        int metadataMax = groups.config().offsetMetadataMaxChars();
        for (TxnOffsetCommitRequestTopic requested : request.topics()) {
            Optional<Topic> topic = byId ? topics.byId(requested.topicId()) : topics.byName(requested.name());
            if (topic.isEmpty()) {
                response.addPartitions(
                        requested.topicId(),
                        requested.name(),
                        requested.partitions(),
                        TxnOffsetCommitRequestPartition::partitionIndex,
                        byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            for (TxnOffsetCommitRequestPartition partition : requested.partitions()) {
                String metadata = partition.committedMetadata() == null ? "" : partition.committedMetadata();
                Errors refused = partition.partitionIndex() < 0
                        ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                        : metadata.length() > metadataMax ? Errors.OFFSET_METADATA_TOO_LARGE : Errors.NONE;
                if (refused != Errors.NONE) {
                    response.addPartition(requested.topicId(), requested.name(), partition.partitionIndex(), refused);
                    continue;
                }
                TopicPartition key = new TopicPartition(topic.get().name(), partition.partitionIndex());
                offsets.put(
                        key,
                        new CommittedOffset(
                                partition.committedOffset(),
                                Math.max(partition.committedLeaderEpoch(), CommittedOffset.NO_LEADER_EPOCH),
                                metadata,
                                nowMs));
                ids.put(key, GroupTopics.idOf(topic.get()));
            }
        }
        if (!offsets.isEmpty()) {
            Errors error = commit(request, version, offsets);
            offsets.keySet()
                    .forEach(partition ->
                            response.addPartition(ids.get(partition), partition.topic(), partition.partition(), error));
        }
        return response.build().data().setThrottleTimeMs(0);
    }

    /**
     * The group's coordinator checks the member and keeps the offsets pending under its lease; the
     * error of every partition.
     */
    private Errors commit(
            TxnOffsetCommitRequestData request, short version, Map<TopicPartition, CommittedOffset> offsets) {
        if (request.producerId() < 0 || request.producerEpoch() < 0) {
            throw new InvalidRequestException("a producer id and epoch >= 0 are required, got " + request.producerId()
                    + "/" + request.producerEpoch());
        }
        ProducerEpoch producer = new ProducerEpoch(request.producerId(), request.producerEpoch());
        boolean withMember = version >= FIRST_VERSION_WITH_MEMBER;
        TransactionalCommitResult result = groups.commitTransactionalOffsets(
                request.groupId(),
                withMember ? request.memberId() : "",
                withMember ? request.groupInstanceId() : null,
                withMember ? request.generationIdOrMemberEpoch() : NO_GENERATION,
                lease -> transactions.commitPendingOffsets(request.transactionalId(), producer, lease, offsets));
        return result.error() == GroupError.NONE
                ? transactionError(result.outcome(), version)
                : memberError(result.error(), version);
    }

    private static Errors transactionError(TransactionOutcome outcome, short version) {
        return TransactionErrors.of(outcome, ApiKeys.TXN_OFFSET_COMMIT, version);
    }

    /**
     * A group's refusal on the wire. kafka-clients' TransactionManager looks the coordinator up again and
     * retries on NOT_COORDINATOR, retries on COORDINATOR_LOAD_IN_PROGRESS (any retriable error), and
     * aborts the transaction on the member checks' errors (CommitFailedException); GROUP_ID_NOT_FOUND and
     * STALE_MEMBER_EPOCH are known from v6 only.
     */
    private static Errors memberError(GroupError error, short version) {
        if ((error == GroupError.GROUP_ID_NOT_FOUND && !TxnOffsetCommitRequest.supportsGroupIdNotFoundError(version))
                || (error == GroupError.STALE_MEMBER_EPOCH
                        && !TxnOffsetCommitRequest.supportsStaleMemberEpochError(version))) {
            return Errors.ILLEGAL_GENERATION;
        }
        return GroupErrorCodes.of(error);
    }

    @Override
    public Map<Errors, Integer> errorCounts(TxnOffsetCommitResponseData response) {
        return new TxnOffsetCommitResponse(response).errorCounts();
    }
}
