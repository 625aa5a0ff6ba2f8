package io.floe.kafka.codec;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Populated requests and responses of the admin APIs and OffsetForLeaderEpoch, for a given version,
 * on the same terms as {@link Samples} and {@link ResponseSamples}.
 */
final class AdminSamples {

    private AdminSamples() {}

    static ApiMessage request(ApiKeys key, short v) {
        return switch (key) {
            case INCREMENTAL_ALTER_CONFIGS -> incrementalAlterConfigsRequest();
            case ALTER_CONFIGS -> alterConfigsRequest();
            case DELETE_RECORDS ->
                new DeleteRecordsRequestData()
                        .setTimeoutMs(5000)
                        .setTopics(List.of(new DeleteRecordsRequestData.DeleteRecordsTopic()
                                .setName("orders")
                                .setPartitions(List.of(
                                        new DeleteRecordsRequestData.DeleteRecordsPartition()
                                                .setPartitionIndex(1)
                                                .setOffset(42),
                                        new DeleteRecordsRequestData.DeleteRecordsPartition()
                                                .setPartitionIndex(2)
                                                .setOffset(-1)))));
            case DESCRIBE_PRODUCERS -> describeProducersRequest();
            case OFFSET_FOR_LEADER_EPOCH -> offsetForLeaderEpochRequest(v);
            case DESCRIBE_LOG_DIRS -> describeLogDirsRequest();
            case LIST_PARTITION_REASSIGNMENTS ->
                new ListPartitionReassignmentsRequestData()
                        .setTimeoutMs(5000)
                        .setTopics(List.of(new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics()
                                .setName("orders")
                                .setPartitionIndexes(List.of(0, 1))));
            case ELECT_LEADERS -> electLeadersRequest(v);
            default -> TransactionSamples.request(key, v);
        };
    }

    static ApiMessage response(ApiKeys key, short v) {
        return switch (key) {
            case INCREMENTAL_ALTER_CONFIGS ->
                new IncrementalAlterConfigsResponseData()
                        .setThrottleTimeMs(5)
                        .setResponses(List.of(new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                                .setErrorCode((short) 40)
                                .setErrorMessage("Unknown topic config name: x")
                                .setResourceType((byte) 2)
                                .setResourceName("orders")));
            case ALTER_CONFIGS ->
                new AlterConfigsResponseData()
                        .setThrottleTimeMs(5)
                        .setResponses(List.of(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                                .setErrorCode((short) 42)
                                .setErrorMessage("not supported")
                                .setResourceType((byte) 4)
                                .setResourceName("0")));
            case DELETE_RECORDS -> deleteRecordsResponse();
            case DESCRIBE_PRODUCERS -> describeProducersResponse();
            case OFFSET_FOR_LEADER_EPOCH -> offsetForLeaderEpochResponse();
            case DESCRIBE_LOG_DIRS -> describeLogDirsResponse(v);
            case LIST_PARTITION_REASSIGNMENTS ->
                new ListPartitionReassignmentsResponseData()
                        .setThrottleTimeMs(5)
                        .setErrorCode((short) 0)
                        .setErrorMessage("none")
                        .setTopics(List.of(new ListPartitionReassignmentsResponseData.OngoingTopicReassignment()
                                .setName("orders")
                                .setPartitions(List.of(
                                        new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment()
                                                .setPartitionIndex(1)
                                                .setReplicas(List.of(0, 1))
                                                .setAddingReplicas(List.of(1))
                                                .setRemovingReplicas(List.of(2))))));
            case ELECT_LEADERS -> electLeadersResponse(v);
            default -> TransactionSamples.response(key, v);
        };
    }

    private static IncrementalAlterConfigsRequestData incrementalAlterConfigsRequest() {
        IncrementalAlterConfigsRequestData data = new IncrementalAlterConfigsRequestData().setValidateOnly(true);
        IncrementalAlterConfigsRequestData.AlterConfigsResource topic =
                new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                        .setResourceType((byte) 2)
                        .setResourceName("orders");
        topic.configs()
                .add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                        .setName("retention.ms")
                        .setConfigOperation((byte) 0)
                        .setValue("1000"));
        topic.configs()
                .add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                        .setName("cleanup.policy")
                        .setConfigOperation((byte) 2)
                        .setValue("compact"));
        topic.configs()
                .add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                        .setName("max.message.bytes")
                        .setConfigOperation((byte) 1)
                        .setValue(null));
        data.resources().add(topic);
        return data;
    }

    private static AlterConfigsRequestData alterConfigsRequest() {
        AlterConfigsRequestData data = new AlterConfigsRequestData().setValidateOnly(true);
        AlterConfigsRequestData.AlterConfigsResource topic = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType((byte) 2)
                .setResourceName("orders");
        topic.configs()
                .add(new AlterConfigsRequestData.AlterableConfig()
                        .setName("retention.ms")
                        .setValue("1000"));
        topic.configs()
                .add(new AlterConfigsRequestData.AlterableConfig()
                        .setName("floe.note")
                        .setValue(null));
        data.resources().add(topic);
        return data;
    }

    private static DescribeProducersRequestData describeProducersRequest() {
        DescribeProducersRequestData data = new DescribeProducersRequestData();
        data.topics()
                .add(new DescribeProducersRequestData.TopicRequest()
                        .setName("orders")
                        .setPartitionIndexes(List.of(0, 3)));
        return data;
    }

    private static OffsetForLeaderEpochRequestData offsetForLeaderEpochRequest(short v) {
        OffsetForLeaderEpochRequestData data = new OffsetForLeaderEpochRequestData();
        if (v >= 3) {
            data.setReplicaId(-1);
        }
        data.topics()
                .add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                        .setTopic("orders")
                        .setPartitions(List.of(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                                .setPartition(1)
                                .setCurrentLeaderEpoch(0)
                                .setLeaderEpoch(0))));
        return data;
    }

    private static DescribeLogDirsRequestData describeLogDirsRequest() {
        DescribeLogDirsRequestData data = new DescribeLogDirsRequestData();
        data.topics()
                .add(new DescribeLogDirsRequestData.DescribableLogDirTopic()
                        .setTopic("orders")
                        .setPartitions(List.of(0, 1, 2)));
        return data;
    }

    private static ElectLeadersRequestData electLeadersRequest(short v) {
        ElectLeadersRequestData data = new ElectLeadersRequestData().setTimeoutMs(5000);
        if (v >= 1) {
            data.setElectionType((byte) 1);
        }
        data.topicPartitions()
                .add(new ElectLeadersRequestData.TopicPartitions()
                        .setTopic("orders")
                        .setPartitions(List.of(0, 1)));
        return data;
    }

    private static DeleteRecordsResponseData deleteRecordsResponse() {
        DeleteRecordsResponseData.DeleteRecordsTopicResult topic =
                new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName("orders");
        topic.partitions()
                .add(new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                        .setPartitionIndex(1)
                        .setLowWatermark(42)
                        .setErrorCode((short) 0));
        topic.partitions()
                .add(new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                        .setPartitionIndex(2)
                        .setLowWatermark(-1)
                        .setErrorCode((short) 1));
        DeleteRecordsResponseData data = new DeleteRecordsResponseData().setThrottleTimeMs(5);
        data.topics().add(topic);
        return data;
    }

    private static DescribeProducersResponseData describeProducersResponse() {
        DescribeProducersResponseData.ProducerState producer = new DescribeProducersResponseData.ProducerState()
                .setProducerId(1001)
                .setProducerEpoch(2)
                .setLastSequence(41)
                .setLastTimestamp(1_700_000_000_000L)
                .setCoordinatorEpoch(-1)
                .setCurrentTxnStartOffset(-1);
        return new DescribeProducersResponseData()
                .setThrottleTimeMs(5)
                .setTopics(List.of(new DescribeProducersResponseData.TopicResponse()
                        .setName("orders")
                        .setPartitions(List.of(
                                new DescribeProducersResponseData.PartitionResponse()
                                        .setPartitionIndex(0)
                                        .setErrorCode((short) 0)
                                        .setActiveProducers(List.of(producer)),
                                new DescribeProducersResponseData.PartitionResponse()
                                        .setPartitionIndex(3)
                                        .setErrorCode((short) 3)
                                        .setErrorMessage("no such partition")
                                        .setActiveProducers(new ArrayList<>())))));
    }

    private static OffsetForLeaderEpochResponseData offsetForLeaderEpochResponse() {
        OffsetForLeaderEpochResponseData data = new OffsetForLeaderEpochResponseData().setThrottleTimeMs(5);
        data.topics()
                .add(new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                        .setTopic("orders")
                        .setPartitions(List.of(
                                new OffsetForLeaderEpochResponseData.EpochEndOffset()
                                        .setErrorCode((short) 0)
                                        .setPartition(1)
                                        .setLeaderEpoch(0)
                                        .setEndOffset(100),
                                new OffsetForLeaderEpochResponseData.EpochEndOffset()
                                        .setErrorCode((short) 74)
                                        .setPartition(2)
                                        .setLeaderEpoch(-1)
                                        .setEndOffset(-1))));
        return data;
    }

    private static DescribeLogDirsResponseData describeLogDirsResponse(short v) {
        DescribeLogDirsResponseData.DescribeLogDirsResult logDir =
                new DescribeLogDirsResponseData.DescribeLogDirsResult()
                        .setErrorCode((short) 0)
                        .setLogDir("file:///var/floe/objects")
                        .setTopics(List.of(new DescribeLogDirsResponseData.DescribeLogDirsTopic()
                                .setName("orders")
                                .setPartitions(List.of(new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                                        .setPartitionIndex(0)
                                        .setPartitionSize(4096)
                                        .setOffsetLag(0)
                                        .setIsFutureKey(true)))));
        DescribeLogDirsResponseData data =
                new DescribeLogDirsResponseData().setThrottleTimeMs(5).setResults(List.of(logDir));
        if (v >= 3) {
            data.setErrorCode((short) 0);
        }
        if (v >= 4) {
            logDir.setTotalBytes(1L << 40).setUsableBytes(1L << 39);
        }
        if (v >= 5) {
            logDir.setIsCordoned(true);
        }
        return data;
    }

    private static ElectLeadersResponseData electLeadersResponse(short v) {
        ElectLeadersResponseData data = new ElectLeadersResponseData()
                .setThrottleTimeMs(5)
                .setReplicaElectionResults(List.of(new ElectLeadersResponseData.ReplicaElectionResult()
                        .setTopic("orders")
                        .setPartitionResult(List.of(
                                new ElectLeadersResponseData.PartitionResult()
                                        .setPartitionId(0)
                                        .setErrorCode((short) 84)
                                        .setErrorMessage("not needed"),
                                new ElectLeadersResponseData.PartitionResult()
                                        .setPartitionId(7)
                                        .setErrorCode((short) 3)
                                        .setErrorMessage(null)))));
        if (v >= 1) {
            data.setErrorCode((short) 0);
        }
        return data;
    }
}
