package io.floe.kafka.api.group;

import io.floe.agent.Agent;
import io.floe.agent.cluster.Cluster;
import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.TopicCatalog;
import io.floe.kafka.api.KafkaApi;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/** The consumer group APIs, of the classic protocol and of the consumer protocol (KIP-848), for the API registry. */
public final class GroupApis {

    private GroupApis() {}

    /**
     * Every group API over {@code agent}'s coordinator; {@code blocking} runs the ones that read or
     * write committed offsets in the metadata store.
     */
    public static List<KafkaApi<? extends ApiMessage, ? extends ApiMessage>> all(Agent agent, Executor blocking) {
        GroupCoordinator groups = agent.groups();
        GroupTopics topics = new GroupTopics(agent.topics());
        Cluster cluster = agent.cluster();
        return List.of(
                new FindCoordinatorApi(agent),
                new CoordinatedApi<>(new JoinGroupApi(groups), JoinGroupRequestData::groupId, cluster),
                new CoordinatedApi<>(new SyncGroupApi(groups), SyncGroupRequestData::groupId, cluster),
                new CoordinatedApi<>(new HeartbeatApi(groups), HeartbeatRequestData::groupId, cluster),
                new CoordinatedApi<>(new LeaveGroupApi(groups), LeaveGroupRequestData::groupId, cluster),
                new CoordinatedApi<>(new OffsetCommitApi(groups, topics, blocking), OffsetCommitRequestData::groupId,
                        cluster),
                new OffsetFetchApi(groups, topics, blocking),
                new CoordinatedApi<>(new OffsetDeleteApi(groups, topics, blocking), OffsetDeleteRequestData::groupId,
                        cluster),
                new ListGroupsApi(groups, blocking),
                new DescribeGroupsApi(groups, blocking),
                new DeleteGroupsApi(groups, blocking),
                new CoordinatedApi<>(new ConsumerGroupHeartbeatApi(groups, TopicCatalog.of(agent.topics()), blocking),
                        ConsumerGroupHeartbeatRequestData::groupId, cluster),
                new ConsumerGroupDescribeApi(groups, topics, blocking));
    }
}
