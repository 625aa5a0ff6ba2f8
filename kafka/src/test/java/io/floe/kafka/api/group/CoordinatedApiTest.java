package io.floe.kafka.api.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.agent.cluster.AgentNode;
import io.floe.agent.cluster.Cluster;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.kafka.api.ClientConnection;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

class CoordinatedApiTest {

    private final Cluster cluster = new Cluster("c", new AgentNode(1, "127.0.0.1", 9092));
    private final KafkaApi<HeartbeatRequestData, HeartbeatResponseData> answered = new KafkaApi<>() {
        @Override
        public CompletionStage<HeartbeatResponseData> handle(RequestContext context, HeartbeatRequestData request) {
            return CompletableFuture.completedFuture(new HeartbeatResponseData());
        }
    };
    private final CoordinatedApi<HeartbeatRequestData, HeartbeatResponseData> api =
            new CoordinatedApi<>(answered, HeartbeatRequestData::groupId, cluster);

    @Test
    void theCoordinatorAnswersAndAnotherAgentSaysNotCoordinator() {
        cluster.update(List.of(new AgentNode(2, "127.0.0.1", 9093)));
        String mine = groupCoordinatedBy(1);
        String theirs = groupCoordinatedBy(2);

        assertThat(heartbeat(mine).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(heartbeat(theirs).errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());

        cluster.update(List.of());
        assertThat(heartbeat(theirs).errorCode())
                .as("alone, this agent coordinates every group")
                .isEqualTo(Errors.NONE.code());
    }

    /**
     * A PostgreSQL restart under a commit: KAFKA_STORAGE_ERROR would make the classic consumer's
     * commitSync throw a non-retriable "Unexpected error in commit"; COORDINATOR_NOT_AVAILABLE is retried.
     */
    @Test
    void aRetriableStoreFailureIsAnsweredCoordinatorNotAvailable() {
        CoordinatedApi<OffsetCommitRequestData, OffsetCommitResponseData> commits =
                new CoordinatedApi<>(failingCommits(true), OffsetCommitRequestData::groupId, cluster);

        OffsetCommitResponseData response = commit(commits);

        assertThat(response.topics())
                .singleElement()
                .satisfies(topic -> assertThat(topic.partitions())
                        .hasSize(2)
                        .allSatisfy(partition ->
                                assertThat(partition.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code())));
    }

    @Test
    void aRetriableStoreFailureOfAStageIsAnsweredCoordinatorNotAvailableToo() {
        KafkaApi<OffsetCommitRequestData, OffsetCommitResponseData> failingLater = (context, request) ->
                CompletableFuture.failedFuture(new MetadataStoreException("connection lost", true, null));
        CoordinatedApi<OffsetCommitRequestData, OffsetCommitResponseData> commits =
                new CoordinatedApi<>(failingLater, OffsetCommitRequestData::groupId, cluster);

        assertThat(commit(commits).topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
    }

    @Test
    void aFailureRetryingCannotHelpStillFailsTheRequest() {
        CoordinatedApi<OffsetCommitRequestData, OffsetCommitResponseData> commits =
                new CoordinatedApi<>(failingCommits(false), OffsetCommitRequestData::groupId, cluster);

        assertThatThrownBy(() -> commit(commits))
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(MetadataStoreException.class);
    }

    private static KafkaApi<OffsetCommitRequestData, OffsetCommitResponseData> failingCommits(boolean retriable) {
        return new KafkaApi<>() {
            @Override
            public CompletionStage<OffsetCommitResponseData> handle(
                    RequestContext context, OffsetCommitRequestData request) {
                // As a blocking API fails: it runs on the blocking executor already, so it throws.
                throw new MetadataStoreException(
                        "metadata store failed to commit offsets: connection lost", retriable, null);
            }
        };
    }

    private static OffsetCommitResponseData commit(
            CoordinatedApi<OffsetCommitRequestData, OffsetCommitResponseData> commits) {
        RequestContext context = new RequestContext(
                new RequestHeader(ApiKeys.OFFSET_COMMIT, (short) 9, "test", 1),
                new ClientConnection(new InetSocketAddress("127.0.0.1", 1)));
        OffsetCommitRequestData request = new OffsetCommitRequestData()
                .setGroupId("g")
                .setMemberId("m")
                .setGenerationIdOrMemberEpoch(1)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName("t")
                        .setPartitions(List.of(
                                new OffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(5),
                                new OffsetCommitRequestPartition()
                                        .setPartitionIndex(1)
                                        .setCommittedOffset(7)))));
        return commits.handle(context, request).toCompletableFuture().join();
    }

    private HeartbeatResponseData heartbeat(String group) {
        RequestContext context = new RequestContext(
                new RequestHeader(ApiKeys.HEARTBEAT, (short) 4, "test", 1),
                new ClientConnection(new InetSocketAddress("127.0.0.1", 1)));
        return api.handle(context, new HeartbeatRequestData().setGroupId(group).setMemberId("m"))
                .toCompletableFuture()
                .join();
    }

    private String groupCoordinatedBy(int nodeId) {
        for (int i = 0; ; i++) {
            if (cluster.coordinatorOf("group-" + i).nodeId() == nodeId) {
                return "group-" + i;
            }
        }
    }
}
