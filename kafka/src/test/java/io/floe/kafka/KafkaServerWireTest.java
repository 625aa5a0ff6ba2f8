package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.kafka.codec.DecodedResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server over raw sockets: the documented answer to every kind of bad input, the connection
 * kept or closed as documented, other connections unaffected, and answers in request order.
 */
class KafkaServerWireTest {

    private static final int MAX_FRAME_BYTES = 64 * 1024;

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private int port;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir, KafkaServerConfig.defaults().withMaxFrameBytes(MAX_FRAME_BYTES));
        port = fixture.server().port();
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void apiVersionsAdvertisesTheServedApis() {
        try (WireClient client = new WireClient(port)) {
            ApiVersionsResponseData response = (ApiVersionsResponseData) client.call(
                            ApiKeys.API_VERSIONS,
                            (short) 3,
                            1,
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName("wire-test")
                                    .setClientSoftwareVersion("1.0"))
                    .body();

            assertThat(response.errorCode()).isZero();
            ApiVersionsResponseData.ApiVersion produce = response.apiKeys().find(ApiKeys.PRODUCE.id);
            assertThat(produce.minVersion()).isEqualTo((short) 3);
            assertThat(produce.maxVersion()).isEqualTo((short) 13);
            assertThat(response.apiKeys().find(ApiKeys.DESCRIBE_ACLS.id)).isNull();
            assertThat(response.apiKeys())
                    .hasSize(io.floe.kafka.api.ApiRegistry.standard(
                                    fixture.agent(), () -> "", new java.util.SplittableRandom(1))
                            .servedVersions()
                            .size());
            for (ApiKeys admin : List.of(
                    ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                    ApiKeys.ALTER_CONFIGS,
                    ApiKeys.DELETE_RECORDS,
                    ApiKeys.DESCRIBE_PRODUCERS,
                    ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                    ApiKeys.DESCRIBE_LOG_DIRS,
                    ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                    ApiKeys.ELECT_LEADERS)) {
                ApiVersionsResponseData.ApiVersion advertised =
                        response.apiKeys().find(admin.id);
                assertThat(advertised).as(admin.name).isNotNull();
                assertThat(advertised.maxVersion()).as(admin.name).isEqualTo(admin.latestVersion());
            }
        }
    }

    @Test
    void apiVersionsWithAnIllegalSoftwareNameIsInvalid() {
        try (WireClient client = new WireClient(port)) {
            ApiVersionsResponseData response = (ApiVersionsResponseData) client.call(
                            ApiKeys.API_VERSIONS,
                            (short) 3,
                            1,
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName("-bad name")
                                    .setClientSoftwareVersion("1"))
                    .body();

            assertThat(response.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        }
    }

    @Test
    void unknownApiKeyGetsUnsupportedVersionAndTheConnectionStays() {
        try (WireClient client = new WireClient(port)) {
            client.sendFrame(ByteBuffer.allocate(10)
                    .putShort((short) 9999)
                    .putShort((short) 0)
                    .putInt(4242)
                    .putShort((short) -1)
                    .array());

            ByteBuffer frame = client.receiveFrame();
            assertThat(frame.remaining()).isEqualTo(6);
            assertThat(frame.getInt()).isEqualTo(4242);
            assertThat(frame.getShort()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertServes(client);
        }
        assertThat(fixture.meters()
                        .counter("floe.kafka.bad.frames", "reason", "unknown_api")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void apiVersionsOfAnUnknownVersionIsAnsweredAtVersionZero() {
        try (WireClient client = new WireClient(port)) {
            ByteBuffer header = ByteBuffer.allocate(11)
                    .putShort(ApiKeys.API_VERSIONS.id)
                    .putShort((short) 42)
                    .putInt(7)
                    .putShort((short) 1)
                    .put((byte) 'x')
                    .flip();
            byte[] frame = new byte[header.remaining() + 3];
            header.get(frame, 0, header.remaining());
            client.sendFrame(frame);

            DecodedResponse response = client.receive(ApiKeys.API_VERSIONS, (short) 0);
            assertThat(response.correlationId()).isEqualTo(7);
            ApiVersionsResponseData body = (ApiVersionsResponseData) response.body();
            assertThat(body.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertThat(body.apiKeys().find(ApiKeys.METADATA.id).maxVersion()).isEqualTo((short) 13);
            assertServes(client);
        }
    }

    @Test
    void servedApiAtAnUnservedVersionGetsItsOwnErrorResponse() {
        try (WireClient client = new WireClient(port)) {
            DecodedResponse response = client.call(
                    ApiKeys.INIT_PRODUCER_ID,
                    (short) 6,
                    8,
                    new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(1000));

            assertThat(response.correlationId()).isEqualTo(8);
            assertThat(((InitProducerIdResponseData) response.body()).errorCode())
                    .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertServes(client);
        }
    }

    @Test
    void apiFloeDoesNotServeGetsItsOwnErrorResponse() {
        try (WireClient client = new WireClient(port)) {
            DecodedResponse response = client.call(
                    ApiKeys.DESCRIBE_ACLS,
                    (short) 3,
                    9,
                    new DescribeAclsRequestData()
                            .setResourceTypeFilter((byte) 1)
                            .setPatternTypeFilter((byte) 1)
                            .setOperation((byte) 1)
                            .setPermissionType((byte) 1));

            DescribeAclsResponseData body = (DescribeAclsResponseData) response.body();
            assertThat(body.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertServes(client);
        }
    }

    @Test
    void malformedHeaderClosesOnlyThatConnection() {
        try (WireClient good = new WireClient(port);
                WireClient bad = new WireClient(port)) {
            bad.sendFrame(new byte[] {0, 3, 0});

            assertThat(bad.closedByServer()).isTrue();
            assertServes(good);
        }
        assertThat(fixture.meters()
                        .counter("floe.kafka.bad.frames", "reason", "malformed_header")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void malformedBodyGetsInvalidRequestAndTheConnectionStays() {
        try (WireClient client = new WireClient(port)) {
            ByteBuffer header = ByteBuffer.allocate(10)
                    .putShort(ApiKeys.DESCRIBE_CLUSTER.id)
                    .putShort((short) 1)
                    .putInt(11)
                    .putShort((short) -1)
                    .flip();
            byte[] frame = new byte[header.remaining() + 1];
            header.get(frame, 0, header.remaining());
            frame[frame.length - 1] = 0; // the empty tagged fields of header v2, then no body at all
            client.sendFrame(frame);

            DecodedResponse response = client.receive(ApiKeys.DESCRIBE_CLUSTER, (short) 1);
            assertThat(response.correlationId()).isEqualTo(11);
            DescribeClusterResponseData body = (DescribeClusterResponseData) response.body();
            assertThat(body.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            assertThat(body.errorMessage()).contains("DescribeCluster");
            assertServes(client);
        }
    }

    @Test
    void oversizedFrameIsAnsweredThenItsConnectionCloses() {
        try (WireClient good = new WireClient(port);
                WireClient bad = new WireClient(port)) {
            ByteBuffer header = ByteBuffer.wrap(requestHeaderBytes(ApiKeys.PRODUCE, (short) 9, 12));
            ByteBuffer frame = ByteBuffer.allocate(4 + 1024).putInt(1024 * 1024).put(header);
            bad.sendRaw(frame.array());

            DecodedResponse response = bad.receive(ApiKeys.PRODUCE, (short) 9);
            assertThat(response.correlationId()).isEqualTo(12);
            assertThat(bad.closedByServer()).isTrue();
            assertServes(good);
        }
    }

    @Test
    void negativeFrameSizeClosesTheConnection() {
        try (WireClient client = new WireClient(port)) {
            client.sendRaw(new byte[] {-1, -1, -1, -2, 1, 2, 3});

            assertThat(client.closedByServer()).isTrue();
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInRequestOrder() {
        fixture.agent().topics().create(new NewTopic("orders", 3, Map.of()), false);
        try (WireClient client = new WireClient(port)) {
            List<ApiKeys> sent = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                switch (i % 3) {
                    case 0 -> client.send(ApiKeys.METADATA, (short) 12, i, new MetadataRequestData().setTopics(null));
                    case 1 ->
                        client.send(
                                ApiKeys.API_VERSIONS,
                                (short) 3,
                                i,
                                new ApiVersionsRequestData()
                                        .setClientSoftwareName("wire-test")
                                        .setClientSoftwareVersion("1"));
                    default -> client.send(ApiKeys.DESCRIBE_CLUSTER, (short) 1, i, new DescribeClusterRequestData());
                }
                sent.add(List.of(ApiKeys.METADATA, ApiKeys.API_VERSIONS, ApiKeys.DESCRIBE_CLUSTER)
                        .get(i % 3));
            }
            for (int i = 0; i < 60; i++) {
                short version = sent.get(i) == ApiKeys.METADATA
                        ? (short) 12
                        : sent.get(i) == ApiKeys.API_VERSIONS ? (short) 3 : (short) 1;
                DecodedResponse response = client.receive(sent.get(i), version);
                assertThat(response.correlationId()).isEqualTo(i);
                if (sent.get(i) == ApiKeys.METADATA) {
                    assertThat(((MetadataResponseData) response.body()).topics())
                            .hasSize(1);
                }
            }
        }
        assertThat(fixture.meters()
                        .counter("floe.kafka.requests", "api", "Metadata")
                        .count())
                .isEqualTo(20);
        assertThat(fixture.meters()
                        .timer("floe.kafka.request.latency", "api", "Metadata")
                        .count())
                .isEqualTo(20);
    }

    @Test
    void produceWithoutAcksGetsNoAnswerAndDoesNotHoldUpTheNext() {
        fixture.agent().topics().create(new NewTopic("orders", 1, Map.of()), false);
        try (WireClient client = new WireClient(port)) {
            client.send(ApiKeys.PRODUCE, (short) 9, 1, produce("orders", (short) 0));
            DecodedResponse response = client.call(
                    ApiKeys.API_VERSIONS,
                    (short) 3,
                    2,
                    new ApiVersionsRequestData()
                            .setClientSoftwareName("wire-test")
                            .setClientSoftwareVersion("1"));

            assertThat(response.correlationId()).isEqualTo(2);
        }
    }

    @Test
    void produceToAnUnknownPartitionIsAnsweredPerPartition() {
        fixture.agent().topics().create(new NewTopic("orders", 1, Map.of()), false);
        try (WireClient client = new WireClient(port)) {
            ProduceRequestData request = produce("orders", (short) -1);
            request.topicData().iterator().next().partitionData().get(0).setIndex(5);

            ProduceResponseData response = (ProduceResponseData)
                    client.call(ApiKeys.PRODUCE, (short) 9, 3, request).body();

            assertThat(response.responses().iterator().next().partitionResponses())
                    .singleElement()
                    .satisfies(partition ->
                            assertThat(partition.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        }
    }

    @Test
    void closeAnswersTheRequestsInFlightFirst() throws Exception {
        fixture.agent().topics().create(new NewTopic("orders", 1, Map.of()), false);
        try (WireClient client = new WireClient(port)) {
            FetchRequestData longPoll = new FetchRequestData()
                    .setMaxWaitMs(1500)
                    .setMinBytes(1)
                    .setMaxBytes(1 << 20)
                    .setSessionEpoch(-1)
                    .setTopics(List.of(new FetchRequestData.FetchTopic()
                            .setTopic("orders")
                            .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                    .setPartition(0)
                                    .setFetchOffset(0)
                                    .setPartitionMaxBytes(1 << 20)))));
            client.send(ApiKeys.FETCH, (short) 12, 21, longPoll);
            awaitParkedFetches(1);
            Thread closer = new Thread(fixture.server()::close);
            closer.start();

            DecodedResponse response = client.receive(ApiKeys.FETCH, (short) 12);
            closer.join();

            assertThat(response.correlationId()).isEqualTo(21);
            assertThat(((FetchResponseData) response.body()).errorCode()).isZero();
            assertThat(client.closedByServer()).isTrue();
        }
    }

    /** Waits (bounded) until the agent holds {@code count} fetches in a long poll. */
    private void awaitParkedFetches(int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fixture.agent().meters().get("floe.fetch.waiting").gauge().value() < count) {
            assertThat(System.nanoTime()).as("fetch parked in time").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static void assertServes(WireClient client) {
        DecodedResponse response =
                client.call(ApiKeys.DESCRIBE_CLUSTER, (short) 1, 999, new DescribeClusterRequestData());
        assertThat(response.correlationId()).isEqualTo(999);
        assertThat(((DescribeClusterResponseData) response.body()).brokers()).hasSize(1);
    }

    private static byte[] requestHeaderBytes(ApiKeys key, short version, int correlationId) {
        ByteBuffer encoded = io.floe.kafka.codec.RequestEncoder.encode(
                new RequestHeader(key, version, "wire-test", correlationId), new ProduceRequestData());
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        return bytes;
    }

    static ProduceRequestData produce(String topic, short acks) {
        MemoryRecords records = MemoryRecords.withRecords(
                Compression.NONE, new SimpleRecord(System.currentTimeMillis(), "k".getBytes(), "v".getBytes()));
        ProduceRequestData.TopicProduceData topicData = new ProduceRequestData.TopicProduceData().setName(topic);
        topicData
                .partitionData()
                .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        ProduceRequestData request = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
        request.topicData().add(topicData);
        return request;
    }
}
