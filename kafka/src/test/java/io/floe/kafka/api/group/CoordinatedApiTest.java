package io.floe.kafka.api.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.cluster.AgentNode;
import io.floe.agent.cluster.Cluster;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

class CoordinatedApiTest {

    private final Cluster cluster = new Cluster("c", new AgentNode(1, "127.0.0.1", 9092));
    private final KafkaApi<HeartbeatRequestData, HeartbeatResponseData> answered = new KafkaApi<>() {
        @Override
        public ApiKeys key() {
            return ApiKeys.HEARTBEAT;
        }

        @Override
        public short minVersion() {
            return 0;
        }

        @Override
        public short maxVersion() {
            return 4;
        }

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
        assertThat(heartbeat(theirs).errorCode()).as("alone, this agent coordinates every group")
                .isEqualTo(Errors.NONE.code());
    }

    private HeartbeatResponseData heartbeat(String group) {
        RequestContext context = new RequestContext(new RequestHeader(ApiKeys.HEARTBEAT, (short) 4, "test", 1),
                new InetSocketAddress("127.0.0.1", 1));
        return api.handle(context, new HeartbeatRequestData().setGroupId(group).setMemberId("m"))
                .toCompletableFuture().join();
    }

    private String groupCoordinatedBy(int nodeId) {
        for (int i = 0; ; i++) {
            if (cluster.coordinatorOf("group-" + i).nodeId() == nodeId) {
                return "group-" + i;
            }
        }
    }
}
