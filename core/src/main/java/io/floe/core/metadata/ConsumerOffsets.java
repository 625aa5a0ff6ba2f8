package io.floe.core.metadata;

import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.log.TopicPartition;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The metadata role of consumer groups' committed offsets. Follows the
 * {@linkplain io.floe.core.metadata package contract}; each method's kind is its {@link MetadataOperation}.
 */
public interface ConsumerOffsets {

    /**
     * Stores {@code offsets} for {@code groupId} in one transaction, each replacing the group's earlier
     * commit for its partition. Topics are not checked: the caller validates them first. Offsets
     * outlive the topic's deletion only until {@link #deleteTopicOffsets} runs. Idempotent.
     */
    void commitOffsets(String groupId, Map<TopicPartition, CommittedOffset> offsets);

    /**
     * {@link #commitOffsets(String, Map)} fenced by the coordinator lease ({@link Leases#acquireCoordinator}):
     * in one transaction, stores the offsets only while the group's lease is still held by
     * {@code coordinator.owner()} at {@code coordinator.epoch()}. Returns false, and stores nothing, when
     * it is not. Fenced: after a lost answer the offsets may be stored.
     */
    boolean commitOffsets(CoordinatorLease coordinator, Map<TopicPartition, CommittedOffset> offsets);

    /** Every offset {@code groupId} committed, by partition; empty when it has none. */
    Map<TopicPartition, CommittedOffset> committedOffsets(String groupId);

    /**
     * OffsetFetch's read: every offset {@code groupId} committed, and the partitions for which it has
     * offsets pending in an open transaction ({@link Transactions#commitPendingOffsets}), both as of one
     * point in time. An end of transaction moves pending offsets to the committed ones in one store
     * transaction; this read sees it either wholly (the new offset, no longer pending) or not at all
     * (the old offset, still pending), never the old offset without the pending mark.
     */
    FetchedOffsets fetchOffsets(String groupId);

    /**
     * OffsetDelete: deletes the offsets of group {@code coordinator.groupId()} of {@code partitions}, in
     * one transaction and only while the group's coordinator lease is still held by
     * {@code coordinator.owner()} at {@code coordinator.epoch()} (the coordinator checked the group's
     * subscriptions in its memory). Returns how many existed, or empty when the lease is not held and
     * nothing was deleted. Fenced.
     */
    OptionalInt deleteOffsets(CoordinatorLease coordinator, Collection<TopicPartition> partitions);

    /**
     * DeleteGroups: deletes every offset of group {@code coordinator.groupId()}, in one transaction and
     * only while its coordinator lease is still held at {@code coordinator.epoch()} (the coordinator
     * found the group without members in its memory). Returns how many existed, or empty when the lease
     * is not held and nothing was deleted. Fenced.
     */
    OptionalInt deleteGroupOffsets(CoordinatorLease coordinator);

    /**
     * Deletes every group's offsets of {@code topic}, as when the topic is deleted; returns how many
     * existed. Idempotent.
     */
    int deleteTopicOffsets(String topic);

    /**
     * Deletes the offsets of {@code groupId} committed before {@code committedBefore} (retention), in one
     * transaction and only when no other agent may have members of the group: nothing is deleted while
     * the group's coordinator lease is held at {@code now} by another owner than {@code coordinator}, or
     * ended less than its holder's longest member session before {@code now} (those members may be on
     * their way to the next coordinator). Returns how many were deleted. Idempotent.
     */
    int expireOffsets(String groupId, Instant committedBefore, String coordinator, Instant now);

    /** The ids of all groups with at least one committed offset, sorted. */
    List<String> offsetGroups();

    /**
     * The ids of the groups with at least one offset committed before {@code committedBefore}, sorted:
     * the groups whose offsets retention may expire. Read through an index on the commit time, so its
     * cost follows those groups, not every group with offsets.
     */
    List<String> groupsCommittedBefore(Instant committedBefore);
}
