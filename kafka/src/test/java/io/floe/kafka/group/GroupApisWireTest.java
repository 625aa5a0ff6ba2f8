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
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every version of every group API over the wire, including the corners real clients do not reach. */
class GroupApisWireTest {

    @TempDir
    Path dir;

    private GroupServer server;
    private WireClient client;
    private Topic orders;
    private int correlationId;

    @BeforeEach
    void start() {
        server = new GroupServer(dir);
        client = new WireClient(server.port());
        orders = server.agent().topics().create(new NewTopic("orders", 2, Map.of()), false);
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void findCoordinatorAnswersGroupKeysAtEveryVersionAndRefusesTransactions() {
        for (short version = 0; version <= ApiKeys.FIND_COORDINATOR.latestVersion(); version++) {
            FindCoordinatorRequestData request =
                    new FindCoordinatorRequestData().setKeyType(CoordinatorType.GROUP.id());
            if (version < 4) {
                request.setKey("billing");
            } else {
                request.setCoordinatorKeys(List.of("billing", "audit"));
            }
            FindCoordinatorResponseData response = call(ApiKeys.FIND_COORDINATOR, version, request);
            if (version < 4) {
                assertThat(response.errorCode()).isZero();
                assertThat(response.port()).isEqualTo(server.port());
            } else {
                assertThat(response.coordinators())
                        .extracting(FindCoordinatorResponseData.Coordinator::key)
                        .containsExactly("billing", "audit");
                assertThat(response.coordinators())
                        .allSatisfy(c -> assertThat(c.port()).isEqualTo(server.port()));
            }
        }
        FindCoordinatorResponseData transactions = call(
                ApiKeys.FIND_COORDINATOR,
                (short) 4,
                new FindCoordinatorRequestData()
                        .setKeyType(CoordinatorType.TRANSACTION.id())
                        .setCoordinatorKeys(List.of("tx")));
        assertThat(transactions.coordinators().get(0).errorCode()).isZero();
        assertThat(transactions.coordinators().get(0).port()).isEqualTo(server.port());
    }

    @Test
    void membersJoinSyncHeartbeatAndLeaveAtEveryVersion() {
        for (short version = 0; version <= ApiKeys.JOIN_GROUP.latestVersion(); version++) {
            String group = "group-v" + version;
            JoinGroupResponseData joined = join(group, "", version);
            if (version >= 4) {
                assertThat(joined.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());
                joined = join(group, joined.memberId(), version);
            }
            assertThat(joined.errorCode()).as("JoinGroup v%d", version).isZero();
            assertThat(joined.generationId()).isEqualTo(1);
            assertThat(joined.protocolName()).isEqualTo("range");
            assertThat(joined.members())
                    .singleElement()
                    .satisfies(m -> assertThat(m.metadata()).isEqualTo(bytes("meta")));
            String member = joined.memberId();

            short syncVersion = (short) Math.min(version, ApiKeys.SYNC_GROUP.latestVersion());
            SyncGroupResponseData synced = call(
                    ApiKeys.SYNC_GROUP,
                    syncVersion,
                    new SyncGroupRequestData()
                            .setGroupId(group)
                            .setMemberId(member)
                            .setGenerationId(1)
                            .setAssignments(List.of(new SyncGroupRequestAssignment()
                                    .setMemberId(member)
                                    .setAssignment(bytes("p")))));
            assertThat(synced.errorCode()).as("SyncGroup v%d", syncVersion).isZero();
            assertThat(synced.assignment()).isEqualTo(bytes("p"));

            short heartbeatVersion = (short) Math.min(version, ApiKeys.HEARTBEAT.latestVersion());
            HeartbeatResponseData beat = call(
                    ApiKeys.HEARTBEAT,
                    heartbeatVersion,
                    new HeartbeatRequestData()
                            .setGroupId(group)
                            .setMemberId(member)
                            .setGenerationId(0));
            assertThat(beat.errorCode())
                    .as("Heartbeat v%d", heartbeatVersion)
                    .isEqualTo(Errors.ILLEGAL_GENERATION.code());

            short leaveVersion = (short) Math.min(version, ApiKeys.LEAVE_GROUP.latestVersion());
            LeaveGroupRequestData leave = new LeaveGroupRequestData().setGroupId(group);
            if (leaveVersion < 3) {
                leave.setMemberId(member);
            } else {
                leave.setMembers(
                        List.of(new MemberIdentity().setMemberId(member), new MemberIdentity().setMemberId("x")));
            }
            LeaveGroupResponseData left = call(ApiKeys.LEAVE_GROUP, leaveVersion, leave);
            if (leaveVersion < 3) {
                assertThat(left.errorCode()).isZero();
            } else {
                assertThat(left.members())
                        .extracting(LeaveGroupResponseData.MemberResponse::errorCode)
                        .containsExactly(Errors.NONE.code(), Errors.UNKNOWN_MEMBER_ID.code());
            }
        }
    }

    @Test
    void offsetsAreCommittedAndFetchedAtEveryVersion() {
        for (short version = ApiKeys.OFFSET_COMMIT.oldestVersion();
                version <= ApiKeys.OFFSET_COMMIT.latestVersion();
                version++) {
            String group = "commit-v" + version;
            OffsetCommitResponseData committed = call(
                    ApiKeys.OFFSET_COMMIT,
                    version,
                    new OffsetCommitRequestData()
                            .setGroupId(group)
                            .setGenerationIdOrMemberEpoch(-1)
                            .setMemberId("")
                            .setTopics(List.of(
                                    commitTopic(version, "orders", orders), commitTopic(version, "missing", null))));
            assertThat(committed.topics()).as("OffsetCommit v%d", version).hasSize(2);
            Errors unknown = version >= 10 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            boolean byId = version >= 10;
            for (OffsetCommitResponseData.OffsetCommitResponseTopic topic : committed.topics()) {
                boolean known = byId
                        ? topic.topicId().equals(kafkaId(orders))
                        : topic.name().equals("orders");
                assertThat(topic.partitions())
                        .singleElement()
                        .satisfies(
                                p -> assertThat(p.errorCode()).isEqualTo(known ? Errors.NONE.code() : unknown.code()));
            }
            assertThat(server.agent().groups().committedOffsets(group)).hasSize(1);
        }
        for (short version = ApiKeys.OFFSET_FETCH.oldestVersion();
                version <= ApiKeys.OFFSET_FETCH.latestVersion();
                version++) {
            OffsetFetchResponseData fetched = fetch("commit-v9", version);
            long offset;
            if (version < 8) {
                assertThat(fetched.errorCode()).isZero();
                offset = fetched.topics().get(0).partitions().get(0).committedOffset();
                assertThat(fetched.topics().get(0).partitions().get(1).committedOffset())
                        .isEqualTo(-1);
            } else {
                assertThat(fetched.groups())
                        .singleElement()
                        .satisfies(g -> assertThat(g.errorCode()).isZero());
                offset = fetched.groups()
                        .get(0)
                        .topics()
                        .get(0)
                        .partitions()
                        .get(0)
                        .committedOffset();
            }
            assertThat(offset).as("OffsetFetch v%d", version).isEqualTo(42);
        }
    }

    @Test
    void fetchingEveryOffsetOfAGroupNeedsNoTopicList() {
        call(
                ApiKeys.OFFSET_COMMIT,
                (short) 9,
                new OffsetCommitRequestData()
                        .setGroupId("all")
                        .setGenerationIdOrMemberEpoch(-1)
                        .setTopics(List.of(commitTopic((short) 9, "orders", orders))));

        OffsetFetchResponseData v7 = call(
                ApiKeys.OFFSET_FETCH,
                (short) 7,
                new OffsetFetchRequestData().setGroupId("all").setTopics(null));
        OffsetFetchResponseData v10 = call(
                ApiKeys.OFFSET_FETCH,
                (short) 10,
                new OffsetFetchRequestData()
                        .setGroups(List.of(
                                new OffsetFetchRequestGroup().setGroupId("all").setTopics(null))));

        assertThat(v7.topics())
                .singleElement()
                .satisfies(t -> assertThat(t.name()).isEqualTo("orders"));
        assertThat(v10.groups().get(0).topics())
                .singleElement()
                .satisfies(t -> assertThat(t.topicId()).isEqualTo(kafkaId(orders)));
    }

    @Test
    void commitsToUnknownGroupsWithAGenerationAreRefusedSoTheMemberRejoins() {
        OffsetCommitRequestData request = new OffsetCommitRequestData()
                .setGroupId("nobody")
                .setGenerationIdOrMemberEpoch(3)
                .setMemberId("m")
                .setTopics(List.of(commitTopic((short) 8, "orders", orders)));

        OffsetCommitResponseData v8 = call(ApiKeys.OFFSET_COMMIT, (short) 8, request);
        OffsetCommitResponseData v9 = call(ApiKeys.OFFSET_COMMIT, (short) 9, request);
        OffsetCommitResponseData emptyId =
                call(ApiKeys.OFFSET_COMMIT, (short) 9, request.duplicate().setGroupId(""));

        assertThat(v8.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.ILLEGAL_GENERATION.code());
        // Not Kafka's GROUP_ID_NOT_FOUND, which kafka-clients' consumers do not handle in a commit response:
        // in Floe an unknown group is what a member finds after its group moved to another agent.
        assertThat(v9.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(emptyId.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
    }

    @Test
    void groupsAreListedDescribedAndDeletedAtEveryVersion() {
        call(
                ApiKeys.OFFSET_COMMIT,
                (short) 9,
                new OffsetCommitRequestData()
                        .setGroupId("simple")
                        .setGenerationIdOrMemberEpoch(-1)
                        .setTopics(List.of(commitTopic((short) 9, "orders", orders))));

        for (short version = 0; version <= ApiKeys.LIST_GROUPS.latestVersion(); version++) {
            ListGroupsResponseData listed = call(ApiKeys.LIST_GROUPS, version, new ListGroupsRequestData());
            assertThat(listed.groups())
                    .as("ListGroups v%d", version)
                    .extracting(ListGroupsResponseData.ListedGroup::groupId)
                    .containsExactly("simple");
        }
        ListGroupsResponseData stable =
                call(ApiKeys.LIST_GROUPS, (short) 4, new ListGroupsRequestData().setStatesFilter(List.of("stable")));
        ListGroupsResponseData classic = call(
                ApiKeys.LIST_GROUPS,
                (short) 5,
                new ListGroupsRequestData().setTypesFilter(List.of("Classic")).setStatesFilter(List.of("EMPTY")));
        ListGroupsResponseData consumer =
                call(ApiKeys.LIST_GROUPS, (short) 5, new ListGroupsRequestData().setTypesFilter(List.of("consumer")));
        assertThat(stable.groups()).isEmpty();
        assertThat(classic.groups()).singleElement().satisfies(group -> {
            assertThat(group.groupState()).isEqualTo("Empty");
            assertThat(group.groupType()).isEqualTo("classic");
        });
        assertThat(consumer.groups()).isEmpty();

        for (short version = 0; version <= ApiKeys.DESCRIBE_GROUPS.latestVersion(); version++) {
            DescribeGroupsResponseData described = call(
                    ApiKeys.DESCRIBE_GROUPS,
                    version,
                    new DescribeGroupsRequestData().setGroups(List.of("simple", "missing")));
            assertThat(described.groups().get(0).groupState()).isEqualTo("Empty");
            DescribeGroupsResponseData.DescribedGroup missing =
                    described.groups().get(1);
            assertThat(missing.groupState()).isEqualTo("Dead");
            assertThat(missing.errorCode())
                    .as("DescribeGroups v%d", version)
                    .isEqualTo(version >= 6 ? Errors.GROUP_ID_NOT_FOUND.code() : Errors.NONE.code());
        }

        for (short version = 0; version <= ApiKeys.DELETE_GROUPS.latestVersion(); version++) {
            DeleteGroupsResponseData deleted = call(
                    ApiKeys.DELETE_GROUPS, version, new DeleteGroupsRequestData().setGroupsNames(List.of("simple")));
            assertThat(deleted.results().find("simple").errorCode())
                    .as("DeleteGroups v%d", version)
                    .isEqualTo(version == 0 ? Errors.NONE.code() : Errors.GROUP_ID_NOT_FOUND.code());
        }
    }

    @Test
    void offsetDeleteRemovesOffsetsOfAnEmptyGroup() {
        call(
                ApiKeys.OFFSET_COMMIT,
                (short) 9,
                new OffsetCommitRequestData()
                        .setGroupId("simple")
                        .setGenerationIdOrMemberEpoch(-1)
                        .setTopics(List.of(commitTopic((short) 9, "orders", orders))));
        OffsetDeleteRequestTopicCollection topics = new OffsetDeleteRequestTopicCollection();
        topics.add(new OffsetDeleteRequestTopic()
                .setName("orders")
                .setPartitions(List.of(new OffsetDeleteRequestPartition().setPartitionIndex(0))));
        topics.add(new OffsetDeleteRequestTopic()
                .setName("missing")
                .setPartitions(List.of(new OffsetDeleteRequestPartition().setPartitionIndex(0))));

        OffsetDeleteResponseData deleted = call(
                ApiKeys.OFFSET_DELETE,
                (short) 0,
                new OffsetDeleteRequestData().setGroupId("simple").setTopics(topics));

        assertThat(deleted.errorCode()).isZero();
        assertThat(deleted.topics().find("orders").partitions().find(0).errorCode())
                .isZero();
        assertThat(deleted.topics().find("missing").partitions().find(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(server.agent().groups().committedOffsets("simple")).isEmpty();
        OffsetDeleteResponseData unknownGroup =
                call(ApiKeys.OFFSET_DELETE, (short) 0, new OffsetDeleteRequestData().setGroupId("nobody"));
        assertThat(unknownGroup.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    }

    private JoinGroupResponseData join(String group, String memberId, short version) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(bytes("meta")));
        return call(
                ApiKeys.JOIN_GROUP,
                version,
                new JoinGroupRequestData()
                        .setGroupId(group)
                        .setMemberId(memberId)
                        .setSessionTimeoutMs(10_000)
                        .setRebalanceTimeoutMs(10_000)
                        .setProtocolType("consumer")
                        .setProtocols(protocols));
    }

    private OffsetFetchResponseData fetch(String group, short version) {
        if (version < 8) {
            return call(
                    ApiKeys.OFFSET_FETCH,
                    version,
                    new OffsetFetchRequestData()
                            .setGroupId(group)
                            .setTopics(List.of(new OffsetFetchRequestTopic()
                                    .setName("orders")
                                    .setPartitionIndexes(List.of(0, 1)))));
        }
        OffsetFetchRequestTopics topic = new OffsetFetchRequestTopics().setPartitionIndexes(List.of(0, 1));
        if (version >= 10) {
            topic.setTopicId(kafkaId(orders));
        } else {
            topic.setName("orders");
        }
        return call(
                ApiKeys.OFFSET_FETCH,
                version,
                new OffsetFetchRequestData()
                        .setGroups(List.of(
                                new OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(topic)))));
    }

    private static OffsetCommitRequestTopic commitTopic(short version, String name, Topic topic) {
        OffsetCommitRequestTopic requested = new OffsetCommitRequestTopic()
                .setPartitions(List.of(new OffsetCommitRequestPartition()
                        .setPartitionIndex(0)
                        .setCommittedOffset(42)
                        .setCommittedMetadata("m")));
        if (version >= 10) {
            return requested.setTopicId(topic == null ? Uuid.randomUuid() : kafkaId(topic));
        }
        return requested.setName(name);
    }

    private static Uuid kafkaId(Topic topic) {
        return new Uuid(topic.id().getMostSignificantBits(), topic.id().getLeastSignificantBits());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    private <R extends ApiMessage> R call(ApiKeys key, short version, ApiMessage request) {
        return (R) client.call(key, version, ++correlationId, request).body();
    }
}
