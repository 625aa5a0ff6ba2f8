package io.floe.kafka.api.group;

import io.floe.agent.Agent;
import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.TopicCatalog;
import io.floe.kafka.api.KafkaApi;
import java.util.List;
import java.util.concurrent.Executor;
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
        return List.of(
                new FindCoordinatorApi(agent),
                new JoinGroupApi(groups),
                new SyncGroupApi(groups),
                new HeartbeatApi(groups),
                new LeaveGroupApi(groups),
                new OffsetCommitApi(groups, topics, blocking),
                new OffsetFetchApi(groups, topics, blocking),
                new OffsetDeleteApi(groups, topics, blocking),
                new ListGroupsApi(groups, blocking),
                new DescribeGroupsApi(groups, blocking),
                new DeleteGroupsApi(groups, blocking),
                new ConsumerGroupHeartbeatApi(groups, TopicCatalog.of(agent.topics()), blocking),
                new ConsumerGroupDescribeApi(groups, topics, blocking));
    }
}
