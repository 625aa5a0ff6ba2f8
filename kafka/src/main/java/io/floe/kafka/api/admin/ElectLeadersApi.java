package io.floe.kafka.api.admin;

import io.floe.agent.Agent;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData.TopicPartitions;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ElectLeadersResponse;

/**
 * ElectLeaders (v0-2). A Floe partition is always led by the agent the cluster assigns and has no
 * other replicas, so no election is ever needed: each named partition answers ELECTION_NOT_NEEDED
 * (unknown ones UNKNOWN_TOPIC_OR_PARTITION), and a request for all partitions answers none, as Kafka
 * leaves out partitions that already have their leader.
 */
final class ElectLeadersApi implements KafkaApi<ElectLeadersRequestData, ElectLeadersResponseData> {

    private static final byte PREFERRED = 0;
    private static final byte UNCLEAN = 1;

    private final Agent agent;

    ElectLeadersApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(ElectLeadersResponseData response) {
        return new ElectLeadersResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<ElectLeadersResponseData> handle(RequestContext context, ElectLeadersRequestData request) {
        ElectLeadersResponseData response =
                new ElectLeadersResponseData().setThrottleTimeMs(0).setErrorCode(Errors.NONE.code());
        byte type = request.electionType();
        if (type != PREFERRED && type != UNCLEAN) {
            // Only v1+ carry an election type, and they carry the top-level error code too.
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code()));
        }
        if (request.topicPartitions() == null) {
            return CompletableFuture.completedFuture(response);
        }
        for (TopicPartitions topic : request.topicPartitions()) {
            ReplicaElectionResult result = new ReplicaElectionResult().setTopic(topic.topic());
            for (int partition : topic.partitions()) {
                result.partitionResult().add(elect(topic.topic(), partition));
            }
            response.replicaElectionResults().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }

    private PartitionResult elect(String name, int partition) {
        PartitionResult result = new PartitionResult().setPartitionId(partition);
        try {
            Topic topic = agent.topics().find(name).orElseThrow(() -> new UnknownTopicException(name));
            if (!topic.hasPartition(partition)) {
                throw new UnknownTopicException(name + "-" + partition);
            }
            return result.setErrorCode(Errors.ELECTION_NOT_NEEDED.code())
                    .setErrorMessage("Partition " + name + "-" + partition
                            + " is always led by the agent the cluster assigns; it has no other replicas");
        } catch (RuntimeException e) {
            ApiException error = KafkaErrors.toApiException(e);
            return result.setErrorCode(Errors.forException(error).code()).setErrorMessage(error.getMessage());
        }
    }
}
