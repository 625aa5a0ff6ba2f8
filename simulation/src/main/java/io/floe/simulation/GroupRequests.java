package io.floe.simulation;

import io.floe.agent.Agent;
import io.floe.agent.group.GroupError;
import io.floe.agent.group.TransactionalCommitResult;
import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The two group requests whose Kafka API classes compose several agent calls, made here with the same
 * calls in the same order (the simulation has no wire layer): OffsetFetch with {@code require_stable}
 * as {@code OffsetFetchApi} answers it, and TxnOffsetCommit as {@code TxnOffsetCommitApi} does. When
 * those APIs change how they call the agent, this class must change with them: it is the simulation's
 * one copy of that composition.
 */
final class GroupRequests {

    /** What OffsetFetch answers for one partition: an offset (-1 for none), or UNSTABLE_OFFSET_COMMIT. */
    record FetchedOffset(long offset, boolean unstable) {

        static final long NONE = -1;
    }

    /** An OffsetFetch's answer: a group error, or an answer per partition asked for. */
    record OffsetFetchAnswer(GroupError error, Map<TopicPartition, FetchedOffset> partitions) {}

    /** A TxnOffsetCommit's answer: a member error, or the transaction coordinator's outcome. */
    record TxnOffsetCommitAnswer(GroupError memberError, TransactionOutcome outcome) {}

    private GroupRequests() {}

    /**
     * OffsetFetch v7+ for a classic group's member, with {@code require_stable}: the member check, then
     * the committed offsets and the partitions with offsets pending in open transactions (answered
     * UNSTABLE_OFFSET_COMMIT) in one read, as {@code OffsetFetchApi#fetchQuietly}. Store failures throw.
     */
    static OffsetFetchAnswer offsetFetch(
            Agent agent, String groupId, String memberId, Collection<TopicPartition> partitions) {
        GroupError member = agent.groups().validateOffsetFetch(groupId, memberId, -1);
        if (member != GroupError.NONE) {
            return new OffsetFetchAnswer(member, Map.of());
        }
        FetchedOffsets fetched = agent.groups().fetchOffsets(groupId);
        Map<TopicPartition, CommittedOffset> committed = fetched.committed();
        Set<TopicPartition> pending = fetched.pending();
        Map<TopicPartition, FetchedOffset> answer = new HashMap<>();
        for (TopicPartition partition : partitions) {
            CommittedOffset offset = committed.get(partition);
            answer.put(
                    partition,
                    pending.contains(partition)
                            ? new FetchedOffset(FetchedOffset.NONE, true)
                            : new FetchedOffset(offset == null ? FetchedOffset.NONE : offset.offset(), false));
        }
        return new OffsetFetchAnswer(GroupError.NONE, answer);
    }

    /**
     * TxnOffsetCommit v3+ (the member's group metadata included), as {@code TxnOffsetCommitApi#commit}:
     * the group's coordinator checks the member and keeps the offsets pending in the producer's
     * transaction under its coordinator lease. Store failures throw.
     */
    static TxnOffsetCommitAnswer txnOffsetCommit(
            Agent agent,
            String transactionalId,
            ProducerEpoch producer,
            String groupId,
            String memberId,
            int generationId,
            Map<TopicPartition, CommittedOffset> offsets) {
        TransactionalCommitResult result = agent.groups()
                .commitTransactionalOffsets(
                        groupId,
                        memberId,
                        null,
                        generationId,
                        lease -> agent.transactions().commitPendingOffsets(transactionalId, producer, lease, offsets));
        return new TxnOffsetCommitAnswer(result.error(), result.outcome());
    }
}
