package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Answers of the individual APIs over the wire, for the cases the admin and client tests do not reach. */
class ApisWireTest {

    private static final byte READ_COMMITTED = 1;

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private WireClient client;
    private Topic orders;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
        client = new WireClient(fixture.server().port());
        orders = fixture.agent().topics().create(new NewTopic("orders", 2, Map.of()), false);
    }

    @AfterEach
    void stop() {
        client.close();
        fixture.close();
    }

    @Test
    void metadataAutoCreatesValidUnknownTopicsOnlyWhenAllowed() {
        MetadataResponseData response = metadata(true, "orders", "fresh", "bad/name");

        assertThat(response.topics())
                .extracting(MetadataResponseData.MetadataResponseTopic::errorCode)
                .containsExactly(Errors.NONE.code(), Errors.NONE.code(), Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(response.topics().find("orders").partitions())
                .hasSize(2)
                .allSatisfy(partition -> assertThat(partition.leaderId()).isZero());
        assertThat(response.topics().find("fresh").topicId()).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(metadata(false, "other").topics().find("other").errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(response.brokers())
                .singleElement()
                .satisfies(broker ->
                        assertThat(broker.port()).isEqualTo(fixture.server().port()));
    }

    @Test
    void metadataByTopicId() {
        Uuid id = new Uuid(orders.id().getMostSignificantBits(), orders.id().getLeastSignificantBits());
        Uuid unknown = Uuid.randomUuid();
        MetadataRequestData request = new MetadataRequestData()
                .setTopics(List.of(
                        new MetadataRequestTopic().setTopicId(id), new MetadataRequestTopic().setTopicId(unknown)));

        MetadataResponseData response = (MetadataResponseData)
                client.call(ApiKeys.METADATA, (short) 12, 1, request).body();

        assertThat(response.topics())
                .extracting(MetadataResponseData.MetadataResponseTopic::name)
                .containsExactly("orders", null);
        assertThat(response.topics())
                .extracting(MetadataResponseData.MetadataResponseTopic::errorCode)
                .containsExactly(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_ID.code());
    }

    @Test
    void listOffsetsFindsEarliestLatestAndByTimestamp() {
        long now = System.currentTimeMillis();
        fixture.agent()
                .produce()
                .append(
                        orders,
                        0,
                        MemoryRecords.withRecords(
                                        Compression.NONE,
                                        new SimpleRecord(now, "a".getBytes()),
                                        new SimpleRecord(now + 10, "b".getBytes()),
                                        new SimpleRecord(now + 5, "c".getBytes()))
                                .buffer())
                .join();

        assertThat(listOffset(0, -2)).containsExactly(0L, -1L);
        assertThat(listOffset(0, -1)).containsExactly(3L, -1L);
        assertThat(listOffset(0, -3)).containsExactly(1L, now + 10);
        assertThat(listOffset(0, now + 1)).containsExactly(1L, now + 10);
        assertThat(listOffset(0, now + 60_000)).containsExactly(-1L, -1L);
        assertThat(listOffset(1, -1)).containsExactly(0L, -1L);
        assertThat(listOffset(0, -1, READ_COMMITTED))
                .as("no open transaction: the last stable offset is the high watermark")
                .containsExactly(3L, -1L);
        assertThat(listOffset(0, now + 1, READ_COMMITTED)).containsExactly(1L, now + 10);
        ListOffsetsResponseData unknown = listOffsets("nope", 0, -1);
        assertThat(unknown.topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @Test
    void producerIdsForIdempotentAndTransactionalProducers() {
        InitProducerIdResponseData first = initProducerId(null);
        InitProducerIdResponseData second = initProducerId(null);
        InitProducerIdResponseData transactional = initProducerId("tx-1");
        InitProducerIdResponseData again = initProducerId("tx-1");

        assertThat(first.errorCode()).isZero();
        assertThat(first.producerEpoch()).isZero();
        assertThat(second.producerId()).isNotEqualTo(first.producerId());
        assertThat(transactional.errorCode()).isZero();
        assertThat(again.producerId()).isEqualTo(transactional.producerId());
        assertThat(again.producerEpoch()).isEqualTo((short) (transactional.producerEpoch() + 1));
    }

    @Test
    void aTransactionalBatchNeedsTheRequestsTransactionalId() {
        ProduceRequestData request = KafkaServerWireTest.produce("orders", (short) -1);
        request.topicData()
                .iterator()
                .next()
                .partitionData()
                .get(0)
                .setRecords(MemoryRecords.withTransactionalRecords(
                        Compression.NONE, 7L, (short) 0, 0, new SimpleRecord("v".getBytes())));

        ProduceResponseData response = (ProduceResponseData)
                client.call(ApiKeys.PRODUCE, (short) 11, 1, request).body();

        assertThat(response.responses()
                        .iterator()
                        .next()
                        .partitionResponses()
                        .get(0)
                        .errorCode())
                .isEqualTo(Errors.INVALID_RECORD.code());
    }

    @Test
    void describeConfigsRefusesOtherBrokersAndUnsupportedResources() {
        DescribeConfigsRequestData request = new DescribeConfigsRequestData()
                .setResources(
                        List.of(resource(8, ""), resource(4, "7"), resource(32, "group-1"), resource(2, "orders")));

        DescribeConfigsResponseData response = (DescribeConfigsResponseData)
                client.call(ApiKeys.DESCRIBE_CONFIGS, (short) 4, 1, request).body();

        assertThat(response.results())
                .extracting(DescribeConfigsResponseData.DescribeConfigsResult::errorCode)
                .containsExactly(
                        Errors.NONE.code(),
                        Errors.INVALID_REQUEST.code(),
                        Errors.INVALID_REQUEST.code(),
                        Errors.NONE.code());
        assertThat(response.results().get(0).configs()).isEmpty();
        assertThat(response.results().get(3).configs())
                .extracting(c -> c.name())
                .contains("retention.ms");
    }

    @Test
    void describeClusterRefusesControllerEndpoints() {
        DescribeClusterResponseData response = (DescribeClusterResponseData) client.call(
                        ApiKeys.DESCRIBE_CLUSTER, (short) 1, 1, new DescribeClusterRequestData().setEndpointType((byte)
                                        2))
                .body();

        assertThat(response.errorCode()).isEqualTo(Errors.MISMATCHED_ENDPOINT_TYPE.code());
    }

    private MetadataResponseData metadata(boolean autoCreate, String... names) {
        MetadataRequestData request = new MetadataRequestData()
                .setAllowAutoTopicCreation(autoCreate)
                .setTopics(java.util.Arrays.stream(names)
                        .map(name -> new MetadataRequestTopic().setName(name))
                        .toList());
        return (MetadataResponseData)
                client.call(ApiKeys.METADATA, (short) 12, 1, request).body();
    }

    private List<Long> listOffset(int partition, long timestamp) {
        return listOffset(partition, timestamp, (byte) 0);
    }

    private List<Long> listOffset(int partition, long timestamp, byte isolationLevel) {
        ListOffsetsResponseData.ListOffsetsPartitionResponse answer = listOffsets(
                        "orders", partition, timestamp, isolationLevel)
                .topics()
                .get(0)
                .partitions()
                .get(0);
        assertThat(answer.errorCode()).isZero();
        return List.of(answer.offset(), answer.timestamp());
    }

    private ListOffsetsResponseData listOffsets(String topic, int partition, long timestamp) {
        return listOffsets(topic, partition, timestamp, (byte) 0);
    }

    private ListOffsetsResponseData listOffsets(String topic, int partition, long timestamp, byte isolationLevel) {
        ListOffsetsRequestData request = new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setIsolationLevel(isolationLevel)
                .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                        .setName(topic)
                        .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(partition)
                                .setTimestamp(timestamp)))));
        return (ListOffsetsResponseData)
                client.call(ApiKeys.LIST_OFFSETS, (short) 9, 1, request).body();
    }

    private InitProducerIdResponseData initProducerId(String transactionalId) {
        return (InitProducerIdResponseData) client.call(
                        ApiKeys.INIT_PRODUCER_ID,
                        (short) 5,
                        1,
                        new InitProducerIdRequestData()
                                .setTransactionalId(transactionalId)
                                .setTransactionTimeoutMs(60_000))
                .body();
    }

    private static DescribeConfigsResource resource(int type, String name) {
        return new DescribeConfigsResource()
                .setResourceType((byte) type)
                .setResourceName(name)
                .setConfigurationKeys(null);
    }
}
