package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.NewTopic;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transaction paths of shared APIs over the wire, on the SQL store. */
class TransactionApisWireTest {

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private WireClient client;
    private int correlation;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
        client = new WireClient(fixture.server().port());
        fixture.agent().topics().create(new NewTopic("orders", 1, Map.of()), false);
    }

    @AfterEach
    void stop() {
        client.close();
        fixture.close();
    }

    @Test
    void apiVersionsFinalizesTransactionVersion2() {
        ApiVersionsResponseData v4 = apiVersions(4);
        ApiVersionsResponseData v3 = apiVersions(3);

        assertThat(v4.finalizedFeaturesEpoch()).isZero();
        assertThat(v4.finalizedFeatures().find("transaction.version").maxVersionLevel())
                .isEqualTo((short) 2);
        assertThat(v4.supportedFeatures().find("transaction.version").maxVersion())
                .isEqualTo((short) 2);
        assertThat(v3.finalizedFeatures().find("transaction.version").maxVersionLevel())
                .isEqualTo((short) 2);
        assertThat(v3.supportedFeatures().find("transaction.version"))
                .as("a minimum of 0 is left out before v4")
                .isNull();
        assertThat(v4.apiKeys().find(ApiKeys.END_TXN.id).maxVersion()).isEqualTo((short) 5);
        assertThat(v4.apiKeys().find(ApiKeys.TXN_OFFSET_COMMIT.id).maxVersion()).isEqualTo((short) 6);
    }

    @Test
    void findCoordinatorMapsTransactionalIds() {
        FindCoordinatorResponseData response = call(
                ApiKeys.FIND_COORDINATOR,
                4,
                new FindCoordinatorRequestData()
                        .setKeyType(CoordinatorType.TRANSACTION.id())
                        .setCoordinatorKeys(List.of("tx-1")));

        assertThat(response.coordinators()).singleElement().satisfies(coordinator -> {
            assertThat(coordinator.errorCode()).isZero();
            assertThat(coordinator.port()).isEqualTo(fixture.server().port());
        });
    }

    @Test
    void initProducerIdChecksTheTimeoutAndFencesByVersion() {
        InitProducerIdResponseData tooLong = init("tx-1", 900_001, -1, (short) -1, 5);
        InitProducerIdResponseData first = init("tx-1", 60_000, -1, (short) -1, 5);
        InitProducerIdResponseData recovered = init("tx-1", 60_000, first.producerId(), first.producerEpoch(), 5);

        assertThat(tooLong.errorCode()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT.code());
        assertThat(first.errorCode()).isZero();
        assertThat(recovered.errorCode()).isZero();
        assertThat(recovered.producerEpoch()).isEqualTo((short) (first.producerEpoch() + 1));
        assertThat(init("tx-1", 60_000, first.producerId(), (short) 7, 4).errorCode())
                .isEqualTo(Errors.PRODUCER_FENCED.code());
        assertThat(init("tx-1", 60_000, first.producerId(), (short) 7, 3).errorCode())
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
    }

    @Test
    void aVersion1BatchNeedsItsPartitionAddedAndThenOpensTheTransactionOnThePartition() {
        InitProducerIdResponseData producer = init("tx-1", 60_000, -1, (short) -1, 5);

        assertThat(produce(producer, 11)).isEqualTo(Errors.TRANSACTION_ABORTABLE);
        assertThat(produce(producer, 10)).isEqualTo(Errors.INVALID_TXN_STATE);

        AddPartitionsToTxnResponseData added = call(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                3,
                new AddPartitionsToTxnRequestData()
                        .setV3AndBelowTransactionalId("tx-1")
                        .setV3AndBelowProducerId(producer.producerId())
                        .setV3AndBelowProducerEpoch(producer.producerEpoch())
                        .setV3AndBelowTopics(new AddPartitionsToTxnTopicCollection(List.of(new AddPartitionsToTxnTopic()
                                        .setName("orders")
                                        .setPartitions(List.of(0)))
                                .iterator())));
        assertThat(added.resultsByTopicV3AndBelow()
                        .find("orders")
                        .resultsByPartition()
                        .find(0)
                        .partitionErrorCode())
                .isZero();
        assertThat(produce(producer, 11)).isEqualTo(Errors.NONE);

        DescribeProducersResponseData described = call(
                ApiKeys.DESCRIBE_PRODUCERS,
                0,
                new DescribeProducersRequestData()
                        .setTopics(new DescribeProducersRequestData.TopicRequestCollection(
                                List.of(new DescribeProducersRequestData.TopicRequest()
                                                .setName("orders")
                                                .setPartitionIndexes(List.of(0)))
                                        .iterator())));
        assertThat(described.topics().get(0).partitions().get(0).activeProducers())
                .singleElement()
                .satisfies(state -> {
                    assertThat(state.producerId()).isEqualTo(producer.producerId());
                    assertThat(state.currentTxnStartOffset()).isZero();
                    assertThat(state.coordinatorEpoch()).isZero();
                });
    }

    @Test
    void aVersion1TransactionCommitsItsRecordsMarkerAndOffsetsTogether() {
        InitProducerIdResponseData producer = init("tx-1", 60_000, -1, (short) -1, 4);
        AddPartitionsToTxnResponseData added = call(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                3,
                new AddPartitionsToTxnRequestData()
                        .setV3AndBelowTransactionalId("tx-1")
                        .setV3AndBelowProducerId(producer.producerId())
                        .setV3AndBelowProducerEpoch(producer.producerEpoch())
                        .setV3AndBelowTopics(new AddPartitionsToTxnTopicCollection(List.of(new AddPartitionsToTxnTopic()
                                        .setName("orders")
                                        .setPartitions(List.of(0)))
                                .iterator())));
        assertThat(added.resultsByTopicV3AndBelow()
                        .find("orders")
                        .resultsByPartition()
                        .find(0)
                        .partitionErrorCode())
                .isZero();
        assertThat(produce(producer, 9)).isEqualTo(Errors.NONE);
        AddOffsetsToTxnResponseData offsets = call(
                ApiKeys.ADD_OFFSETS_TO_TXN,
                3,
                new AddOffsetsToTxnRequestData()
                        .setTransactionalId("tx-1")
                        .setProducerId(producer.producerId())
                        .setProducerEpoch(producer.producerEpoch())
                        .setGroupId("group-1"));
        assertThat(offsets.errorCode()).isZero();
        assertThat(txnOffsetCommit(producer, -1, 3)
                        .topics()
                        .get(0)
                        .partitions()
                        .get(0)
                        .errorCode())
                .isZero();
        TopicPartition orders = new TopicPartition("orders", 0);
        assertThat(fixture.agent().metadata().reads().offsets(orders).lastStableOffset())
                .as("the open transaction holds the last stable offset at its first record")
                .isZero();

        EndTxnResponseData ended = call(
                ApiKeys.END_TXN,
                3,
                new EndTxnRequestData()
                        .setTransactionalId("tx-1")
                        .setProducerId(producer.producerId())
                        .setProducerEpoch(producer.producerEpoch())
                        .setCommitted(true));

        assertThat(ended.errorCode()).isZero();
        LogOffsets after = fixture.agent().metadata().reads().offsets(orders);
        assertThat(after.highWatermark()).as("one record and its commit marker").isEqualTo(2);
        assertThat(after.lastStableOffset()).isEqualTo(2);
        assertThat(fixture.agent()
                        .groups()
                        .committedOffsets("group-1")
                        .get(orders)
                        .offset())
                .isEqualTo(5);
        assertThat(offsetFetch(true)).isEqualTo(Errors.NONE);
    }

    @Test
    void aVersion2BatchJoinsTheTransaction() {
        InitProducerIdResponseData producer = init("tx-2", 60_000, -1, (short) -1, 5);

        assertThat(produce(producer, 12, "tx-2")).isEqualTo(Errors.NONE);
    }

    @Test
    void pendingTransactionalOffsetsAreUnstableForRequireStable() {
        InitProducerIdResponseData producer = init("tx-1", 60_000, -1, (short) -1, 5);
        TxnOffsetCommitResponseData committed = txnOffsetCommit(producer, -1, 5);
        assertThat(committed.topics().get(0).partitions().get(0).errorCode()).isZero();
        assertThat(txnOffsetCommit(producer, 3, 5)
                        .topics()
                        .get(0)
                        .partitions()
                        .get(0)
                        .errorCode())
                .as("a generation of a group this agent does not hold")
                .isEqualTo(Errors.ILLEGAL_GENERATION.code());

        assertThat(offsetFetch(true)).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);
        assertThat(offsetFetch(false)).isEqualTo(Errors.NONE);
    }

    private TxnOffsetCommitResponseData txnOffsetCommit(
            InitProducerIdResponseData producer, int generation, int version) {
        return call(
                ApiKeys.TXN_OFFSET_COMMIT,
                version,
                new TxnOffsetCommitRequestData()
                        .setTransactionalId("tx-1")
                        .setGroupId("group-1")
                        .setProducerId(producer.producerId())
                        .setProducerEpoch(producer.producerEpoch())
                        .setGenerationIdOrMemberEpoch(generation)
                        .setMemberId(generation < 0 ? "" : "member-1")
                        .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                                .setName("orders")
                                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(5)
                                        .setCommittedMetadata(""))))));
    }

    private Errors offsetFetch(boolean requireStable) {
        OffsetFetchResponseData response = call(
                ApiKeys.OFFSET_FETCH,
                7,
                new OffsetFetchRequestData()
                        .setGroupId("group-1")
                        .setRequireStable(requireStable)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                                .setName("orders")
                                .setPartitionIndexes(List.of(0)))));
        return Errors.forCode(response.topics().get(0).partitions().get(0).errorCode());
    }

    private Errors produce(InitProducerIdResponseData producer, int version) {
        return produce(producer, version, "tx-1");
    }

    private Errors produce(InitProducerIdResponseData producer, int version, String transactionalId) {
        ProduceRequestData request =
                KafkaServerWireTest.produce("orders", (short) -1).setTransactionalId(transactionalId);
        request.topicData()
                .iterator()
                .next()
                .partitionData()
                .get(0)
                .setRecords(MemoryRecords.withTransactionalRecords(
                        Compression.NONE,
                        producer.producerId(),
                        producer.producerEpoch(),
                        0,
                        new SimpleRecord("v".getBytes())));
        ProduceResponseData response = call(ApiKeys.PRODUCE, version, request);
        return Errors.forCode(response.responses()
                .iterator()
                .next()
                .partitionResponses()
                .get(0)
                .errorCode());
    }

    private InitProducerIdResponseData init(String id, int timeoutMs, long producerId, short epoch, int version) {
        return call(
                ApiKeys.INIT_PRODUCER_ID,
                version,
                new InitProducerIdRequestData()
                        .setTransactionalId(id)
                        .setTransactionTimeoutMs(timeoutMs)
                        .setProducerId(producerId)
                        .setProducerEpoch(epoch));
    }

    private ApiVersionsResponseData apiVersions(int version) {
        return call(
                ApiKeys.API_VERSIONS,
                version,
                new ApiVersionsRequestData().setClientSoftwareName("test").setClientSoftwareVersion("1"));
    }

    @SuppressWarnings("unchecked")
    private <R extends ApiMessage> R call(ApiKeys key, int version, ApiMessage request) {
        return (R) client.call(key, (short) version, ++correlation, request).body();
    }
}
