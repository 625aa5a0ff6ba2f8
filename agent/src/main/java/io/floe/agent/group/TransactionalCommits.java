package io.floe.agent.group;

import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TxnOffsetCommit at the group's coordinator (KIP-447's zombie fencing): the member checks against the
 * group in memory, trusted only under the group's coordinator lease, and the pending write, which the
 * store makes only while that lease is still held. A member of a group this coordinator has not taken
 * over yet is told to retry (COORDINATOR_LOAD_IN_PROGRESS) while it may still come. Blocking.
 */
final class TransactionalCommits {

    private static final Logger LOGGER = LoggerFactory.getLogger(TransactionalCommits.class);

    private final GroupLeases leases;
    private final GroupRegistry groups;
    private final ConsumerGroups consumerGroups;
    private final MemberRequests members;

    TransactionalCommits(
            GroupLeases leases, GroupRegistry groups, ConsumerGroups consumerGroups, MemberRequests members) {
        this.leases = leases;
        this.groups = groups;
        this.consumerGroups = consumerGroups;
        this.members = members;
    }

    /** See {@link GroupCoordinator#commitTransactionalOffsets}. */
    TransactionalCommitResult commit(
            String groupId,
            String memberId,
            String groupInstanceId,
            int generationIdOrMemberEpoch,
            Function<CoordinatorLease, TransactionOutcome> keepPending) {
        if (groupId.isEmpty()) {
            return TransactionalCommitResult.refused(GroupError.INVALID_GROUP_ID);
        }
        // Taking the lease ends a stale term first (its group leaves memory), so the check below sees this term only.
        Optional<CoordinatorLease> lease = leases.validOrAcquire(groupId);
        if (lease.isEmpty()) {
            return TransactionalCommitResult.refused(GroupError.NOT_COORDINATOR);
        }
        GroupError member = validate(groupId, memberId, groupInstanceId, generationIdOrMemberEpoch);
        if (member != GroupError.NONE) {
            return TransactionalCommitResult.refused(member);
        }
        TransactionOutcome outcome = keepPending.apply(lease.get());
        if (outcome instanceof TransactionOutcome.Refused refused
                && refused.error() == TransactionError.NOT_COORDINATOR) {
            LOGGER.info(
                    "Transactional offset commit fenced: another agent coordinates the group now group={} member={}"
                            + " epoch={}",
                    groupId,
                    memberId,
                    lease.get().epoch());
            leases.lost(lease.get(), "transactional.offsets");
            return TransactionalCommitResult.refused(GroupError.NOT_COORDINATOR);
        }
        return TransactionalCommitResult.passed(outcome);
    }

    /**
     * The member check against the group in memory: a group not in memory passes a commit without a
     * generation, and is GROUP_ID_NOT_FOUND for one with a generation (COORDINATOR_LOAD_IN_PROGRESS while
     * members of an earlier coordinator may still come).
     */
    GroupError validate(String groupId, String memberId, String groupInstanceId, int generationIdOrMemberEpoch) {
        if (leases.awaits(groupId, memberId)) {
            // A consumer-protocol member of the earlier coordinator, not rejoined yet: its epoch is unknown here.
            return GroupError.COORDINATOR_LOAD_IN_PROGRESS;
        }
        ConsumerGroups.Entry consumer = consumerGroups.find(groupId);
        if (consumer != null) {
            // Strict: the relaxed check of KIP-1251 would need the request's partitions here.
            return consumerGroups.validateOffsetCommit(consumer, memberId, generationIdOrMemberEpoch, List.of());
        }
        ClassicGroup group = groups.classic(groupId);
        if (group == null) {
            return generationIdOrMemberEpoch < 0 ? GroupError.NONE : groupNotFound(groupId);
        }
        return group.call(() ->
                members.validateTransactionalOffsetCommit(group, memberId, groupInstanceId, generationIdOrMemberEpoch));
    }

    /**
     * A member's commit for a group not in memory: while members of an earlier coordinator may still
     * come, the group is loading (the client retries), as Kafka's coordinator answers until it has read
     * its offsets topic; GROUP_ID_NOT_FOUND after (the producer aborts its transaction).
     */
    private GroupError groupNotFound(String groupId) {
        return leases.earlierMembersUntil(groupId).isPresent()
                ? GroupError.COORDINATOR_LOAD_IN_PROGRESS
                : GroupError.GROUP_ID_NOT_FOUND;
    }
}
