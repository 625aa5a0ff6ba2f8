package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.agent.cluster.AgentNode;
import io.floe.agent.cluster.Cluster;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterResponse;

/**
 * DescribeCluster (v0-2): the live agents as brokers, none fenced. Agents are brokers only; a request
 * for controller endpoints (v1+, endpoint type 2) gets MISMATCHED_ENDPOINT_TYPE, as a Kafka broker
 * answers it. Cluster authorized operations are not reported.
 */
final class DescribeClusterApi implements KafkaApi<DescribeClusterRequestData, DescribeClusterResponseData> {

    private static final byte BROKERS = 1;
    private static final byte CONTROLLERS = 2;

    private final Agent agent;

    DescribeClusterApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DescribeClusterResponseData response) {
        return new DescribeClusterResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<DescribeClusterResponseData> handle(
            RequestContext context, DescribeClusterRequestData request) {
        Cluster cluster = agent.cluster();
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setThrottleTimeMs(0)
                .setEndpointType(BROKERS)
                .setClusterId(cluster.clusterId())
                .setControllerId(cluster.controller().nodeId());
        if (request.endpointType() == CONTROLLERS) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
                    .setErrorMessage("The request was sent to an endpoint of type BROKER, but we wanted an "
                            + "endpoint of type CONTROLLER"));
        }
        if (request.endpointType() != BROKERS) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("Unsupported endpoint type " + request.endpointType()));
        }
        for (AgentNode node : cluster.liveAgents()) {
            response.brokers()
                    .add(new DescribeClusterBroker()
                            .setBrokerId(node.nodeId())
                            .setHost(node.host())
                            .setPort(node.port())
                            .setRack(null)
                            .setIsFenced(false));
        }
        return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code()));
    }
}
