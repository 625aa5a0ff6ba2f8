package io.floe.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.kafka.WireClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ConsumerGroupHeartbeat and ConsumerGroupDescribe at every version over the wire, and how the
 * offset and administration APIs treat consumer-protocol groups: member epochs on OffsetCommit and
 * OffsetFetch, the group type in ListGroups, DescribeGroups' answer for a group it does not describe.
 */
class ConsumerGroupApisWireTest {

    @TempDir
    Path dir;

    private GroupServer server;
    private WireClient client;
    private Topic orders;
    private Uuid ordersId;
    private int correlationId;

    @BeforeEach
    void start() {
        server = new GroupServer(dir);
        client = new WireClient(server.port());
        orders = server.agent().topics().create(new NewTopic("orders", 4, Map.of()), false);
        ordersId = new Uuid(orders.id().getMostSignificantBits(), orders.id().getLeastSignificantBits());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void apiVersionsAdvertisesTheConsumerProtocol() {
        ApiVersionsResponseData versions = call(
                ApiKeys.API_VERSIONS,
                (short) 3,
                new ApiVersionsRequestData().setClientSoftwareName("wire-test").setClientSoftwareVersion("1.0"));

        assertThat(versions.apiKeys().find(ApiKeys.CONSUMER_GROUP_HEARTBEAT.id)).satisfies(range -> {
            assertThat(range.minVersion()).isZero();
            assertThat(range.maxVersion()).isEqualTo((short) 1);
        });
        assertThat(versions.apiKeys().find(ApiKeys.CONSUMER_GROUP_DESCRIBE.id)).satisfies(range -> {
            assertThat(range.minVersion()).isZero();
            assertThat(range.maxVersion()).isEqualTo((short) 1);
        });
    }

    @Test
    void membersJoinHeartbeatAndLeaveAtEveryVersion() {
        for (short version = 0; version <= ApiKeys.CONSUMER_GROUP_HEARTBEAT.latestVersion(); version++) {
            String group = "group-v" + version;
            // v0 lets the coordinator pick the member id; from v1 the client must.
            String requested = version == 0 ? "" : Uuid.randomUuid().toString();
            ConsumerGroupHeartbeatResponseData joined = heartbeat(version, join(group, requested));
            assertThat(joined.errorCode()).as("v%d join", version).isZero();
            assertThat(joined.memberId()).isNotEmpty();
            if (version > 0) {
                assertThat(joined.memberId()).isEqualTo(requested);
            }
            assertThat(joined.memberEpoch()).isEqualTo(1);
            assertThat(joined.heartbeatIntervalMs()).isEqualTo(5_000);
            assertThat(joined.assignment().topicPartitions()).singleElement().satisfies(topic -> {
                assertThat(topic.topicId()).isEqualTo(ordersId);
                assertThat(topic.partitions()).containsExactlyInAnyOrder(0, 1, 2, 3);
            });
            String member = joined.memberId();

            ConsumerGroupHeartbeatResponseData beat = heartbeat(
                    version,
                    new ConsumerGroupHeartbeatRequestData()
                            .setGroupId(group)
                            .setMemberId(member)
                            .setMemberEpoch(1));
            assertThat(beat.errorCode()).isZero();
            assertThat(beat.assignment()).as("unchanged: not repeated").isNull();

            ConsumerGroupHeartbeatResponseData ahead = heartbeat(
                    version,
                    new ConsumerGroupHeartbeatRequestData()
                            .setGroupId(group)
                            .setMemberId(member)
                            .setMemberEpoch(5));
            assertThat(ahead.errorCode()).isEqualTo(Errors.FENCED_MEMBER_EPOCH.code());
            assertThat(ahead.errorMessage()).contains("greater member epoch (5)");

            ConsumerGroupHeartbeatResponseData left = heartbeat(
                    version,
                    new ConsumerGroupHeartbeatRequestData()
                            .setGroupId(group)
                            .setMemberId(member)
                            .setMemberEpoch(-1));
            assertThat(left.errorCode()).isZero();
            assertThat(left.memberEpoch()).isEqualTo(-1);
            assertThat(heartbeat(
                                    version,
                                    new ConsumerGroupHeartbeatRequestData()
                                            .setGroupId(group)
                                            .setMemberId(member)
                                            .setMemberEpoch(1))
                            .errorCode())
                    .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        }
    }

    @Test
    void badHeartbeatsGetKafkasErrors() {
        ConsumerGroupHeartbeatResponseData noId = heartbeat((short) 1, join("bad", ""));
        assertThat(noId.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(noId.errorMessage()).isEqualTo("MemberId can't be empty.");

        ConsumerGroupHeartbeatResponseData assignor =
                heartbeat((short) 1, join("bad", "m").setServerAssignor("sticky"));
        assertThat(assignor.errorCode()).isEqualTo(Errors.UNSUPPORTED_ASSIGNOR.code());

        ConsumerGroupHeartbeatResponseData regex = heartbeat(
                (short) 1, join("bad", "m").setSubscribedTopicNames(null).setSubscribedTopicRegex("orders("));
        assertThat(regex.errorCode()).isEqualTo(Errors.INVALID_REGULAR_EXPRESSION.code());

        ConsumerGroupHeartbeatResponseData byRegex = heartbeat(
                (short) 1, join("by-regex", "m").setSubscribedTopicNames(null).setSubscribedTopicRegex("ord.*"));
        assertThat(byRegex.errorCode()).isZero();
        assertThat(byRegex.assignment().topicPartitions())
                .singleElement()
                .satisfies(topic -> assertThat(topic.topicId()).isEqualTo(ordersId));
    }

    @Test
    void consumerGroupDescribeAtEveryVersion() {
        String member = heartbeat((short) 1, join("described", "m-1")).memberId();
        joinClassic("classic-group");

        for (short version = 0; version <= ApiKeys.CONSUMER_GROUP_DESCRIBE.latestVersion(); version++) {
            ConsumerGroupDescribeResponseData response = call(
                    ApiKeys.CONSUMER_GROUP_DESCRIBE,
                    version,
                    new ConsumerGroupDescribeRequestData()
                            .setGroupIds(List.of("described", "classic-group", "missing"))
                            .setIncludeAuthorizedOperations(true));

            ConsumerGroupDescribeResponseData.DescribedGroup described =
                    response.groups().get(0);
            assertThat(described.errorCode()).isZero();
            assertThat(described.groupState()).isEqualTo("Stable");
            assertThat(described.groupEpoch()).isEqualTo(1);
            assertThat(described.assignmentEpoch()).isEqualTo(1);
            assertThat(described.assignorName()).isEqualTo("uniform");
            assertThat(described.authorizedOperations() & (1 << AclOperation.DESCRIBE.code()))
                    .isNotZero();
            short v = version;
            assertThat(described.members()).singleElement().satisfies(m -> {
                assertThat(m.memberId()).isEqualTo(member);
                assertThat(m.memberEpoch()).isEqualTo(1);
                assertThat(m.clientId()).isEqualTo("wire-test");
                assertThat(m.subscribedTopicNames()).containsExactly("orders");
                assertThat(m.assignment().topicPartitions()).singleElement().satisfies(topic -> {
                    assertThat(topic.topicName()).isEqualTo("orders");
                    assertThat(topic.topicId()).isEqualTo(ordersId);
                    assertThat(topic.partitions()).hasSize(4);
                });
                assertThat(m.targetAssignment()).isEqualTo(m.assignment());
                assertThat(m.memberType()).isEqualTo(v >= 1 ? (byte) 1 : (byte) -1);
            });
            assertThat(response.groups().get(1).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
            assertThat(response.groups().get(1).errorMessage())
                    .isEqualTo("Group classic-group is not a consumer group.");
            assertThat(response.groups().get(2).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
            assertThat(response.groups().get(2).errorMessage()).isEqualTo("Group missing not found.");
        }
    }

    @Test
    void offsetsAreCommittedAndFetchedUnderTheMemberEpoch() {
        String member = heartbeat((short) 1, join("offsets", "m-1")).memberId();

        OffsetCommitResponseData stale = commit("offsets", member, 7);
        assertThat(stale.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.STALE_MEMBER_EPOCH.code());
        OffsetCommitResponseData unknown = commit("offsets", "stranger", 1);
        assertThat(unknown.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        OffsetCommitResponseData committed = commit("offsets", member, 1);
        assertThat(committed.topics().get(0).partitions().get(0).errorCode()).isZero();

        OffsetFetchResponseData fetched = fetch("offsets", member, 1);
        assertThat(fetched.groups().get(0).errorCode()).isZero();
        assertThat(fetched.groups().get(0).topics().get(0).partitions().get(0).committedOffset())
                .isEqualTo(42);
        assertThat(fetch("offsets", member, 3).groups().get(0).errorCode()).isEqualTo(Errors.STALE_MEMBER_EPOCH.code());
        assertThat(fetch("offsets", "stranger", 1).groups().get(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(fetch("offsets", null, -1).groups().get(0).errorCode())
                .as("admin clients")
                .isZero();
    }

    @Test
    void listGroupsShowsTheTypeAndDescribeGroupsDoesNotDescribeConsumerGroups() {
        heartbeat((short) 1, join("modern", "m-1"));
        joinClassic("classic-group");

        ListGroupsResponseData consumers =
                call(ApiKeys.LIST_GROUPS, (short) 5, new ListGroupsRequestData().setTypesFilter(List.of("Consumer")));
        assertThat(consumers.groups()).singleElement().satisfies(group -> {
            assertThat(group.groupId()).isEqualTo("modern");
            assertThat(group.groupType()).isEqualTo("consumer");
            assertThat(group.protocolType()).isEqualTo("consumer");
            assertThat(group.groupState()).isEqualTo("Stable");
        });
        ListGroupsResponseData classic =
                call(ApiKeys.LIST_GROUPS, (short) 5, new ListGroupsRequestData().setTypesFilter(List.of("classic")));
        assertThat(classic.groups())
                .extracting(ListGroupsResponseData.ListedGroup::groupId)
                .containsExactly("classic-group");

        DescribeGroupsResponseData v6 =
                call(ApiKeys.DESCRIBE_GROUPS, (short) 6, new DescribeGroupsRequestData().setGroups(List.of("modern")));
        assertThat(v6.groups().get(0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(v6.groups().get(0).errorMessage()).isEqualTo("Group modern is not a classic group.");
        DescribeGroupsResponseData v5 =
                call(ApiKeys.DESCRIBE_GROUPS, (short) 5, new DescribeGroupsRequestData().setGroups(List.of("modern")));
        assertThat(v5.groups().get(0).errorCode()).isZero();
        assertThat(v5.groups().get(0).groupState()).isEqualTo("Dead");
    }

    @Test
    void aClassicJoinCannotTakeAConsumerGroupsId() {
        heartbeat((short) 1, join("taken", "m-1"));

        JoinGroupResponseData refused = joinClassic("taken");

        assertThat(refused.errorCode()).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL.code());
    }

    private ConsumerGroupHeartbeatRequestData join(String group, String memberId) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000)
                .setSubscribedTopicNames(List.of("orders"))
                .setTopicPartitions(List.of());
    }

    private ConsumerGroupHeartbeatResponseData heartbeat(short version, ConsumerGroupHeartbeatRequestData request) {
        return call(ApiKeys.CONSUMER_GROUP_HEARTBEAT, version, request);
    }

    private JoinGroupResponseData joinClassic(String group) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(
                new JoinGroupRequestProtocol().setName("range").setMetadata("meta".getBytes(StandardCharsets.UTF_8)));
        return call(
                ApiKeys.JOIN_GROUP,
                (short) 3,
                new JoinGroupRequestData()
                        .setGroupId(group)
                        .setMemberId("")
                        .setSessionTimeoutMs(10_000)
                        .setRebalanceTimeoutMs(10_000)
                        .setProtocolType("consumer")
                        .setProtocols(protocols));
    }

    private OffsetCommitResponseData commit(String group, String member, int epoch) {
        return call(
                ApiKeys.OFFSET_COMMIT,
                (short) 9,
                new OffsetCommitRequestData()
                        .setGroupId(group)
                        .setMemberId(member)
                        .setGenerationIdOrMemberEpoch(epoch)
                        .setTopics(List.of(new OffsetCommitRequestTopic()
                                .setName("orders")
                                .setPartitions(List.of(new OffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(42))))));
    }

    private OffsetFetchResponseData fetch(String group, String member, int epoch) {
        return call(
                ApiKeys.OFFSET_FETCH,
                (short) 10,
                new OffsetFetchRequestData()
                        .setGroups(List.of(new OffsetFetchRequestGroup()
                                .setGroupId(group)
                                .setMemberId(member)
                                .setMemberEpoch(epoch)
                                .setTopics(List.of(new OffsetFetchRequestTopics()
                                        .setTopicId(ordersId)
                                        .setPartitionIndexes(List.of(0)))))));
    }

    @SuppressWarnings("unchecked")
    private <R extends ApiMessage> R call(ApiKeys key, short version, ApiMessage request) {
        return (R) client.call(key, version, ++correlationId, request).body();
    }
}
