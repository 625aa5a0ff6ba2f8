package io.floe.kafka.codec;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A populated request of each API Floe serves, for a given version: every field the version carries
 * is set to a non-default value where that is legal, and no field it lacks is set. Responses are in
 * {@link ResponseSamples}.
 */
final class Samples {

    static final Uuid TOPIC_ID = Uuid.fromString("vDAXwfcTSF2kNYtbhsvNxw");

    private Samples() {}

    static ApiMessage request(ApiKeys key, short v) {
        return switch (key) {
            case API_VERSIONS -> apiVersionsRequest(v);
            case METADATA -> metadataRequest(v);
            case PRODUCE -> produceRequest(v);
            case FETCH -> fetchRequest(v);
            case LIST_OFFSETS -> listOffsetsRequest(v);
            case INIT_PRODUCER_ID -> initProducerIdRequest(v);
            case CREATE_TOPICS -> createTopicsRequest(v);
            case DELETE_TOPICS -> deleteTopicsRequest(v);
            case CREATE_PARTITIONS -> createPartitionsRequest(v);
            case DESCRIBE_CONFIGS -> describeConfigsRequest(v);
            case DESCRIBE_CLUSTER -> describeClusterRequest(v);
            default -> AdminSamples.request(key, v);
        };
    }

    static MemoryRecords records(int count, int valueBytes) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueBytes];
            value[0] = (byte) i;
            records[i] = new SimpleRecord(1_700_000_000_000L + i, ("key-" + i).getBytes(), value);
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    private static ApiVersionsRequestData apiVersionsRequest(short v) {
        ApiVersionsRequestData data = new ApiVersionsRequestData();
        if (v >= 3) {
            data.setClientSoftwareName("floe-test").setClientSoftwareVersion("1.0.0");
        }
        if (v >= 5) {
            data.setClusterId("floe-cluster").setNodeId(0);
        }
        return data;
    }

    private static MetadataRequestData metadataRequest(short v) {
        List<MetadataRequestData.MetadataRequestTopic> topics = new ArrayList<>();
        MetadataRequestData.MetadataRequestTopic named =
                new MetadataRequestData.MetadataRequestTopic().setName("orders");
        topics.add(named);
        if (v >= 12) {
            topics.add(
                    new MetadataRequestData.MetadataRequestTopic().setName(null).setTopicId(TOPIC_ID));
        }
        MetadataRequestData data = new MetadataRequestData().setTopics(topics);
        if (v >= 4) {
            data.setAllowAutoTopicCreation(false);
        }
        if (v >= 8 && v <= 10) {
            data.setIncludeClusterAuthorizedOperations(true);
        }
        if (v >= 8) {
            data.setIncludeTopicAuthorizedOperations(true);
        }
        return data;
    }

    private static ProduceRequestData produceRequest(short v) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData();
        if (v >= 13) {
            topic.setTopicId(TOPIC_ID);
        } else {
            topic.setName("orders");
        }
        topic.partitionData()
                .add(new ProduceRequestData.PartitionProduceData().setIndex(2).setRecords(records(2, 20)));
        ProduceRequestData data = new ProduceRequestData()
                .setTransactionalId(null)
                .setAcks((short) -1)
                .setTimeoutMs(30_000);
        data.topicData().add(topic);
        return data;
    }

    private static FetchRequestData fetchRequest(short v) {
        FetchRequestData.FetchPartition partition = new FetchRequestData.FetchPartition()
                .setPartition(1)
                .setFetchOffset(100)
                .setPartitionMaxBytes(1 << 20);
        if (v >= 5) {
            partition.setLogStartOffset(7);
        }
        if (v >= 9) {
            partition.setCurrentLeaderEpoch(0);
        }
        if (v >= 12) {
            partition.setLastFetchedEpoch(0);
        }
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setPartitions(List.of(partition));
        FetchRequestData data = new FetchRequestData()
                .setMaxWaitMs(500)
                .setMinBytes(1)
                .setMaxBytes(50 << 20)
                .setIsolationLevel((byte) 1)
                .setTopics(List.of(topic));
        if (v <= 14) {
            data.setReplicaId(-1);
        }
        if (v >= 13) {
            topic.setTopicId(TOPIC_ID);
        } else {
            topic.setTopic("orders");
        }
        if (v >= 7) {
            FetchRequestData.ForgottenTopic forgotten = new FetchRequestData.ForgottenTopic().setPartitions(List.of(3));
            if (v >= 13) {
                forgotten.setTopicId(TOPIC_ID);
            } else {
                forgotten.setTopic("orders");
            }
            data.setSessionId(123).setSessionEpoch(4).setForgottenTopicsData(List.of(forgotten));
        }
        if (v >= 11) {
            data.setRackId("rack-a");
        }
        return data;
    }

    private static ListOffsetsRequestData listOffsetsRequest(short v) {
        ListOffsetsRequestData.ListOffsetsPartition partition = new ListOffsetsRequestData.ListOffsetsPartition()
                .setPartitionIndex(1)
                .setTimestamp(-2);
        if (v >= 4) {
            partition.setCurrentLeaderEpoch(0);
        }
        ListOffsetsRequestData data = new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                        .setName("orders")
                        .setPartitions(List.of(partition))));
        if (v >= 2) {
            data.setIsolationLevel((byte) 1);
        }
        if (v >= 10) {
            data.setTimeoutMs(1000);
        }
        return data;
    }

    private static InitProducerIdRequestData initProducerIdRequest(short v) {
        InitProducerIdRequestData data =
                new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000);
        if (v >= 3) {
            data.setProducerId(5).setProducerEpoch((short) 1);
        }
        return data;
    }

    private static CreateTopicsRequestData createTopicsRequest(short v) {
        CreateTopicsRequestData.CreatableTopic topic = new CreateTopicsRequestData.CreatableTopic()
                .setName("orders")
                .setNumPartitions(3)
                .setReplicationFactor((short) -1);
        topic.configs()
                .add(new CreateTopicsRequestData.CreatableTopicConfig()
                        .setName("cleanup.policy")
                        .setValue("compact"));
        CreateTopicsRequestData data =
                new CreateTopicsRequestData().setTimeoutMs(5000).setValidateOnly(true);
        data.topics().add(topic);
        return data;
    }

    private static DeleteTopicsRequestData deleteTopicsRequest(short v) {
        DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTimeoutMs(5000);
        if (v >= 6) {
            data.setTopics(List.of(
                    new DeleteTopicsRequestData.DeleteTopicState().setName("orders"),
                    new DeleteTopicsRequestData.DeleteTopicState().setName(null).setTopicId(TOPIC_ID)));
        } else {
            data.setTopicNames(List.of("orders", "payments"));
        }
        return data;
    }

    private static CreatePartitionsRequestData createPartitionsRequest(short v) {
        CreatePartitionsRequestData data =
                new CreatePartitionsRequestData().setTimeoutMs(5000).setValidateOnly(true);
        data.topics()
                .add(new CreatePartitionsRequestData.CreatePartitionsTopic()
                        .setName("orders")
                        .setCount(4)
                        .setAssignments(null));
        return data;
    }

    private static DescribeConfigsRequestData describeConfigsRequest(short v) {
        DescribeConfigsRequestData data = new DescribeConfigsRequestData()
                .setResources(List.of(
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                                .setResourceType((byte) 2)
                                .setResourceName("orders")
                                .setConfigurationKeys(null),
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                                .setResourceType((byte) 4)
                                .setResourceName("0")
                                .setConfigurationKeys(List.of("node.id"))));
        data.setIncludeSynonyms(true);
        if (v >= 3) {
            data.setIncludeDocumentation(true);
        }
        return data;
    }

    private static DescribeClusterRequestData describeClusterRequest(short v) {
        DescribeClusterRequestData data = new DescribeClusterRequestData().setIncludeClusterAuthorizedOperations(true);
        if (v >= 1) {
            data.setEndpointType((byte) 2);
        }
        if (v >= 2) {
            data.setIncludeFencedBrokers(true);
        }
        return data;
    }
}
