package io.floe.kafka.api.admin;

import io.floe.agent.Agent;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeLogDirsResponse;

/**
 * DescribeLogDirs (v1-5). Floe keeps no logs on local disks: every agent reports one virtual log dir,
 * the object store, holding every partition (any agent serves any partition), with the bytes of the
 * partition's batches at or above its log start as its size and no lag (there are no replicas).
 * Volume sizes are unknown (-1). Partitions and topics that do not exist are left out, as Kafka
 * leaves out partitions a broker does not host.
 */
final class DescribeLogDirsApi implements KafkaApi<DescribeLogDirsRequestData, DescribeLogDirsResponseData> {

    private static final long UNKNOWN_VOLUME_BYTES = -1;

    private final Agent agent;

    DescribeLogDirsApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DescribeLogDirsResponseData response) {
        return new DescribeLogDirsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<DescribeLogDirsResponseData> handle(
            RequestContext context, DescribeLogDirsRequestData request) {
        List<DescribeLogDirsTopic> topics = new ArrayList<>();
        wanted(request).forEach((name, partitions) -> describe(name, partitions).ifPresent(topics::add));
        DescribeLogDirsResult logDir = new DescribeLogDirsResult()
                .setErrorCode(Errors.NONE.code())
                .setLogDir(agent.objects().describe())
                .setTopics(topics)
                .setTotalBytes(UNKNOWN_VOLUME_BYTES)
                .setUsableBytes(UNKNOWN_VOLUME_BYTES);
        return CompletableFuture.completedFuture(new DescribeLogDirsResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code())
                .setResults(List.of(logDir)));
    }

    /** The requested partitions by topic; null partitions mean all (a request without topics asks for all). */
    private Map<String, List<Integer>> wanted(DescribeLogDirsRequestData request) {
        Map<String, List<Integer>> wanted = new LinkedHashMap<>();
        if (request.topics() == null) {
            agent.topics().list().forEach(topic -> wanted.put(topic.name(), null));
            return wanted;
        }
        for (DescribableLogDirTopic topic : request.topics()) {
            wanted.computeIfAbsent(topic.topic(), name -> new ArrayList<>()).addAll(topic.partitions());
        }
        return wanted;
    }

    /** The topic's partitions with their sizes; empty when the topic does not exist (or no longer does). */
    private Optional<DescribeLogDirsTopic> describe(String name, List<Integer> partitions) {
        Optional<Topic> topic = agent.topics().find(name);
        if (topic.isEmpty()) {
            return Optional.empty();
        }
        Map<Integer, Long> sizes;
        try {
            sizes = agent.metadata().reads().partitionSizes(name);
        } catch (UnknownTopicException deleted) {
            return Optional.empty();
        }
        List<DescribeLogDirsPartition> described = new ArrayList<>();
        for (int partition : partitions == null ? sizes.keySet() : partitions) {
            Long size = sizes.get(partition);
            if (size != null && described.stream().noneMatch(p -> p.partitionIndex() == partition)) {
                described.add(new DescribeLogDirsPartition()
                        .setPartitionIndex(partition)
                        .setPartitionSize(size)
                        .setOffsetLag(0)
                        .setIsFutureKey(false));
            }
        }
        return Optional.of(new DescribeLogDirsTopic().setName(name).setPartitions(described));
    }
}
