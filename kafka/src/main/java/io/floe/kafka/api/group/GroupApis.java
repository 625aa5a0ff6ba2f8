package io.floe.kafka.api.group;

import io.floe.agent.Agent;
import io.floe.agent.cluster.Cluster;
import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.TopicCatalog;
import io.floe.kafka.api.ApiRegistry;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The consumer group APIs, of the classic protocol and of the consumer protocol (KIP-848), and
 * TxnOffsetCommit, which producers send to the group's coordinator, for the API registry.
 */
public final class GroupApis {

    private GroupApis() {}

    /**
     * Declares every group API over {@code agent}'s coordinator; the ones that read or write
     * committed offsets in the metadata store are blocking.
     */
    public static void register(ApiRegistry.Builder apis, Agent agent) {
        GroupCoordinator groups = agent.groups();
        GroupTopics topics = new GroupTopics(agent.topics());
        Cluster cluster = agent.cluster();
        apis.eventLoop(ApiKeys.FIND_COORDINATOR, 0, 6, new FindCoordinatorApi(agent))
                .eventLoop(
                        ApiKeys.JOIN_GROUP,
                        0,
                        9,
                        new CoordinatedApi<>(new JoinGroupApi(groups), JoinGroupRequestData::groupId, cluster))
                .eventLoop(
                        ApiKeys.SYNC_GROUP,
                        0,
                        5,
                        new CoordinatedApi<>(new SyncGroupApi(groups), SyncGroupRequestData::groupId, cluster))
                .eventLoop(
                        ApiKeys.HEARTBEAT,
                        0,
                        4,
                        new CoordinatedApi<>(new HeartbeatApi(groups), HeartbeatRequestData::groupId, cluster))
                .eventLoop(
                        ApiKeys.LEAVE_GROUP,
                        0,
                        5,
                        new CoordinatedApi<>(new LeaveGroupApi(groups), LeaveGroupRequestData::groupId, cluster))
                .blocking(
                        ApiKeys.OFFSET_COMMIT,
                        2,
                        10,
                        new CoordinatedApi<>(
                                new OffsetCommitApi(groups, topics), OffsetCommitRequestData::groupId, cluster))
                .blocking(
                        ApiKeys.TXN_OFFSET_COMMIT,
                        0,
                        6,
                        new CoordinatedApi<>(
                                new TxnOffsetCommitApi(agent.transactions(), groups, topics, agent.clock()),
                                TxnOffsetCommitRequestData::groupId,
                                cluster))
                .blocking(ApiKeys.OFFSET_FETCH, 1, 10, new OffsetFetchApi(groups, topics))
                .blocking(
                        ApiKeys.OFFSET_DELETE,
                        0,
                        0,
                        new CoordinatedApi<>(
                                new OffsetDeleteApi(groups, topics), OffsetDeleteRequestData::groupId, cluster))
                .blocking(ApiKeys.LIST_GROUPS, 0, 5, new ListGroupsApi(groups))
                .blocking(ApiKeys.DESCRIBE_GROUPS, 0, 6, new DescribeGroupsApi(groups))
                .blocking(ApiKeys.DELETE_GROUPS, 0, 3, new DeleteGroupsApi(groups))
                .blocking(
                        ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                        0,
                        1,
                        new CoordinatedApi<>(
                                new ConsumerGroupHeartbeatApi(groups, TopicCatalog.of(agent.topics())),
                                ConsumerGroupHeartbeatRequestData::groupId,
                                cluster))
                .blocking(ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, 1, new ConsumerGroupDescribeApi(groups, topics));
    }
}
