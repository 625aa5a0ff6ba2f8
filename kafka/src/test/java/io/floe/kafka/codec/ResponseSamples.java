package io.floe.kafka.codec;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A populated response of each API Floe serves, for a given version: every field the version carries
 * is set to a non-default value where that is legal, and no field it lacks is set.
 */
final class ResponseSamples {

    private static final Uuid TOPIC_ID = Samples.TOPIC_ID;

    private ResponseSamples() {}

    static ApiMessage response(ApiKeys key, short v) {
        return switch (key) {
            case API_VERSIONS -> apiVersionsResponse(v);
            case METADATA -> metadataResponse(v);
            case PRODUCE -> produceResponse(v);
            case FETCH -> fetchResponse(v, Samples.records(3, 10));
            case LIST_OFFSETS -> listOffsetsResponse(v);
            case INIT_PRODUCER_ID ->
                new InitProducerIdResponseData()
                        .setThrottleTimeMs(5)
                        .setErrorCode((short) 0)
                        .setProducerId(42)
                        .setProducerEpoch((short) 3);
            case CREATE_TOPICS -> createTopicsResponse(v);
            case DELETE_TOPICS -> deleteTopicsResponse(v);
            case CREATE_PARTITIONS ->
                new CreatePartitionsResponseData()
                        .setThrottleTimeMs(5)
                        .setResults(List.of(new CreatePartitionsResponseData.CreatePartitionsTopicResult()
                                .setName("orders")
                                .setErrorCode((short) 37)
                                .setErrorMessage("too few")));
            case DESCRIBE_CONFIGS -> describeConfigsResponse(v);
            case DESCRIBE_CLUSTER -> describeClusterResponse(v);
            default -> AdminSamples.response(key, v);
        };
    }

    static FetchResponseData fetchResponse(short v, MemoryRecords records) {
        FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData()
                .setPartitionIndex(1)
                .setErrorCode((short) 0)
                .setHighWatermark(200)
                .setLastStableOffset(200)
                .setAbortedTransactions(null)
                .setRecords(records);
        if (v >= 5) {
            partition.setLogStartOffset(3);
        }
        if (v >= 11) {
            partition.setPreferredReadReplica(-1);
        }
        FetchResponseData.FetchableTopicResponse topic =
                new FetchResponseData.FetchableTopicResponse().setPartitions(List.of(partition));
        if (v >= 13) {
            topic.setTopicId(TOPIC_ID);
        } else {
            topic.setTopic("orders");
        }
        FetchResponseData data = new FetchResponseData().setThrottleTimeMs(5).setResponses(List.of(topic));
        if (v >= 7) {
            data.setErrorCode((short) 0).setSessionId(99);
        }
        return data;
    }

    private static ApiVersionsResponseData apiVersionsResponse(short v) {
        ApiVersionsResponseData data = new ApiVersionsResponseData().setErrorCode((short) 0);
        data.apiKeys()
                .add(new ApiVersionsResponseData.ApiVersion()
                        .setApiKey((short) 0)
                        .setMinVersion((short) 3)
                        .setMaxVersion((short) 13));
        data.apiKeys()
                .add(new ApiVersionsResponseData.ApiVersion()
                        .setApiKey((short) 18)
                        .setMinVersion((short) 0)
                        .setMaxVersion((short) 5));
        if (v >= 1) {
            data.setThrottleTimeMs(5);
        }
        return data;
    }

    private static MetadataResponseData metadataResponse(short v) {
        MetadataResponseData data = new MetadataResponseData();
        data.brokers()
                .add(new MetadataResponseData.MetadataResponseBroker()
                        .setNodeId(0)
                        .setHost("127.0.0.1")
                        .setPort(9092)
                        .setRack(v >= 1 ? "rack-a" : null));
        MetadataResponseData.MetadataResponsePartition partition = new MetadataResponseData.MetadataResponsePartition()
                .setErrorCode((short) 0)
                .setPartitionIndex(1)
                .setLeaderId(0)
                .setReplicaNodes(List.of(0))
                .setIsrNodes(List.of(0));
        if (v >= 7) {
            partition.setLeaderEpoch(0);
        }
        if (v >= 5) {
            partition.setOfflineReplicas(List.of(2));
        }
        MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setErrorCode((short) 0)
                .setName("orders")
                .setPartitions(List.of(partition));
        if (v >= 1) {
            topic.setIsInternal(false);
            data.setControllerId(0);
        }
        if (v >= 2) {
            data.setClusterId("floe-cluster");
        }
        if (v >= 3) {
            data.setThrottleTimeMs(5);
        }
        if (v >= 8) {
            topic.setTopicAuthorizedOperations(8);
        }
        if (v >= 8 && v <= 10) {
            data.setClusterAuthorizedOperations(16);
        }
        if (v >= 10) {
            topic.setTopicId(TOPIC_ID);
        }
        if (v >= 13) {
            data.setErrorCode((short) 0);
        }
        data.topics().add(topic);
        if (v >= 12) {
            data.topics()
                    .add(new MetadataResponseData.MetadataResponseTopic()
                            .setErrorCode((short) 100)
                            .setName(null)
                            .setTopicId(Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"))
                            .setPartitions(List.of()));
        }
        return data;
    }

    private static ProduceResponseData produceResponse(short v) {
        ProduceResponseData.PartitionProduceResponse partition = new ProduceResponseData.PartitionProduceResponse()
                .setIndex(2)
                .setErrorCode((short) 0)
                .setBaseOffset(1234)
                .setLogAppendTimeMs(17);
        if (v >= 5) {
            partition.setLogStartOffset(5);
        }
        if (v >= 8) {
            partition
                    .setErrorMessage("fine")
                    .setRecordErrors(List.of(new ProduceResponseData.BatchIndexAndErrorMessage()
                            .setBatchIndex(1)
                            .setBatchIndexErrorMessage("bad")));
        }
        ProduceResponseData.TopicProduceResponse topic =
                new ProduceResponseData.TopicProduceResponse().setPartitionResponses(List.of(partition));
        if (v >= 13) {
            topic.setTopicId(TOPIC_ID);
        } else {
            topic.setName("orders");
        }
        ProduceResponseData data = new ProduceResponseData().setThrottleTimeMs(5);
        data.responses().add(topic);
        return data;
    }

    private static ListOffsetsResponseData listOffsetsResponse(short v) {
        ListOffsetsResponseData.ListOffsetsPartitionResponse partition =
                new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(1)
                        .setErrorCode((short) 0)
                        .setTimestamp(1_700_000_000_000L)
                        .setOffset(77);
        if (v >= 4) {
            partition.setLeaderEpoch(0);
        }
        ListOffsetsResponseData data = new ListOffsetsResponseData()
                .setTopics(List.of(new ListOffsetsResponseData.ListOffsetsTopicResponse()
                        .setName("orders")
                        .setPartitions(List.of(partition))));
        if (v >= 2) {
            data.setThrottleTimeMs(5);
        }
        return data;
    }

    private static CreateTopicsResponseData createTopicsResponse(short v) {
        CreateTopicsResponseData.CreatableTopicResult topic = new CreateTopicsResponseData.CreatableTopicResult()
                .setName("orders")
                .setErrorCode((short) 0)
                .setErrorMessage("none");
        if (v >= 5) {
            topic.setNumPartitions(3)
                    .setReplicationFactor((short) 1)
                    .setConfigs(List.of(new CreateTopicsResponseData.CreatableTopicConfigs()
                            .setName("cleanup.policy")
                            .setValue("compact")
                            .setReadOnly(false)
                            .setConfigSource((byte) 1)
                            .setIsSensitive(false)));
        }
        if (v >= 7) {
            topic.setTopicId(TOPIC_ID);
        }
        CreateTopicsResponseData data = new CreateTopicsResponseData().setThrottleTimeMs(5);
        data.topics().add(topic);
        return data;
    }

    private static DeleteTopicsResponseData deleteTopicsResponse(short v) {
        DeleteTopicsResponseData.DeletableTopicResult result = new DeleteTopicsResponseData.DeletableTopicResult()
                .setName("orders")
                .setErrorCode((short) 3);
        if (v >= 5) {
            result.setErrorMessage("unknown");
        }
        if (v >= 6) {
            result.setTopicId(TOPIC_ID);
        }
        DeleteTopicsResponseData data = new DeleteTopicsResponseData().setThrottleTimeMs(5);
        data.responses().add(result);
        return data;
    }

    private static DescribeConfigsResponseData describeConfigsResponse(short v) {
        DescribeConfigsResponseData.DescribeConfigsResourceResult config =
                new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                        .setName("retention.ms")
                        .setValue("1000")
                        .setReadOnly(false)
                        .setIsSensitive(false)
                        .setConfigSource((byte) 1)
                        .setSynonyms(List.of(new DescribeConfigsResponseData.DescribeConfigsSynonym()
                                .setName("retention.ms")
                                .setValue("1000")
                                .setSource((byte) 1)));
        if (v >= 3) {
            config.setConfigType((byte) 5).setDocumentation("how long");
        }
        return new DescribeConfigsResponseData()
                .setThrottleTimeMs(5)
                .setResults(List.of(new DescribeConfigsResponseData.DescribeConfigsResult()
                        .setErrorCode((short) 0)
                        .setErrorMessage(null)
                        .setResourceType((byte) 2)
                        .setResourceName("orders")
                        .setConfigs(List.of(config))));
    }

    private static DescribeClusterResponseData describeClusterResponse(short v) {
        DescribeClusterResponseData data = new DescribeClusterResponseData()
                .setThrottleTimeMs(5)
                .setErrorCode((short) 0)
                .setClusterId("floe-cluster")
                .setControllerId(0)
                .setClusterAuthorizedOperations(12);
        DescribeClusterResponseData.DescribeClusterBroker broker =
                new DescribeClusterResponseData.DescribeClusterBroker()
                        .setBrokerId(0)
                        .setHost("127.0.0.1")
                        .setPort(9092)
                        .setRack("rack-a");
        if (v >= 1) {
            data.setEndpointType((byte) 1);
        }
        if (v >= 2) {
            broker.setIsFenced(true);
        }
        data.brokers().add(broker);
        return data;
    }
}
