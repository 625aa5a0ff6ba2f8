package io.floe.kafka.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.kafka.AgentFixture;
import io.floe.kafka.WireClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admin APIs and OffsetForLeaderEpoch over the wire, for what kafka-clients' Admin cannot send
 * (AlterConfigs is gone from it) and for the edge cases of each answer.
 */
class AdminApisWireTest {

    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private WireClient client;
    private Topic orders;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
        client = new WireClient(fixture.server().port());
        orders = fixture.agent().topics().create(new NewTopic("orders", 2, Map.of("floe.note", "old")), false);
        fixture.agent().topics().create(new NewTopic("compacted", 1, Map.of("cleanup.policy", "compact")), false);
    }

    @AfterEach
    void stop() {
        client.close();
        fixture.close();
    }

    @ParameterizedTest(name = "v{0}")
    @ValueSource(shorts = {0, 1, 2})
    void alterConfigsReplacesEveryOverride(short version) {
        AlterConfigsResponseData response = alterConfigs(
                version, false, TOPIC, "orders", Map.of("retention.ms", "1000", "cleanup.policy", "compact"));

        assertThat(response.responses()).singleElement().satisfies(result -> {
            assertThat(result.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(result.resourceName()).isEqualTo("orders");
        });
        assertThat(fixture.agent().topics().find("orders").orElseThrow().configs())
                .containsOnly(Map.entry("retention.ms", "1000"), Map.entry("cleanup.policy", "compact"));
    }

    @Test
    void alterConfigsValidatesAndRefusesBrokersUnlessOnlyValidating() {
        assertThat(alterConfigs((short) 2, false, TOPIC, "orders", Map.of("retention.ms", "soon"))
                        .responses()
                        .get(0)
                        .errorCode())
                .isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(alterConfigs((short) 2, true, TOPIC, "orders", Map.of("retention.ms", "1"))
                        .responses()
                        .get(0)
                        .errorCode())
                .isEqualTo(Errors.NONE.code());
        AlterConfigsResponseData.AlterConfigsResourceResponse broker = alterConfigs(
                        (short) 2, false, BROKER, "0", Map.of("log.retention.ms", "1"))
                .responses()
                .get(0);
        assertThat(broker.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(broker.errorMessage()).contains("dynamic broker configs are not supported");
        assertThat(alterConfigs((short) 2, true, BROKER, "0", Map.of("log.retention.ms", "1"))
                        .responses()
                        .get(0)
                        .errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(alterConfigs((short) 2, true, BROKER, "9", Map.of("log.retention.ms", "1"))
                        .responses()
                        .get(0)
                        .errorCode())
                .isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(fixture.agent().topics().find("orders").orElseThrow().configs())
                .containsOnly(Map.entry("floe.note", "old"));
    }

    @Test
    void incrementalAlterConfigsRefusesDuplicatesNullValuesAndUnknownResourceTypes() {
        fixture.agent().topics().create(new NewTopic("audit", 1, Map.of()), false);
        IncrementalAlterConfigsRequestData request = new IncrementalAlterConfigsRequestData();
        request.resources().add(incremental(TOPIC, "orders", op("retention.ms", 0, "1"), op("retention.ms", 1, null)));
        request.resources().add(incremental(TOPIC, "compacted", op("retention.ms", 0, null)));
        request.resources().add(incremental(TOPIC, "bad/name", op("retention.ms", 0, "1")));
        request.resources().add(incremental((byte) 16, "metrics", op("interval.ms", 0, "1")));
        request.resources().add(incremental(TOPIC, "twice", op("retention.ms", 0, "1")));
        request.resources().add(incremental(TOPIC, "twice", op("retention.ms", 0, "2")));
        request.resources().add(incremental(TOPIC, "audit", op("retention.ms", 9, "1")));

        IncrementalAlterConfigsResponseData response = (IncrementalAlterConfigsResponseData)
                client.call(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, 1, request)
                        .body();

        assertThat(response.responses())
                .extracting(r -> r.resourceName() + ":" + Errors.forCode(r.errorCode()))
                .containsExactly(
                        "orders:INVALID_REQUEST",
                        "compacted:INVALID_REQUEST",
                        "bad/name:INVALID_TOPIC_EXCEPTION",
                        "metrics:INVALID_REQUEST",
                        "twice:INVALID_REQUEST",
                        "audit:INVALID_REQUEST");
        assertThat(fixture.agent().topics().find("orders").orElseThrow().configs())
                .containsOnly(Map.entry("floe.note", "old"));
    }

    @Test
    void deleteRecordsAnswersTheLowWatermarkOrThePartitionsError() {
        append(0, 5);

        DeleteRecordsResponseData response = deleteRecords("orders", Map.of(0, -1L, 1, 1L));
        DeleteRecordsResponseData refused = deleteRecords("compacted", Map.of(0, 0L));
        DeleteRecordsResponseData unknown = deleteRecords("missing", Map.of(0, 0L));

        DeleteRecordsResponseData.DeleteRecordsTopicResult topic =
                response.topics().find("orders");
        assertThat(topic.partitions().find(0).lowWatermark()).isEqualTo(5);
        assertThat(topic.partitions().find(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(topic.partitions().find(1).errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(topic.partitions().find(1).lowWatermark()).isEqualTo(-1);
        assertThat(refused.topics().find("compacted").partitions().find(0).errorCode())
                .isEqualTo(Errors.POLICY_VIOLATION.code());
        assertThat(unknown.topics().find("missing").partitions().find(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @ParameterizedTest(name = "v{0}")
    @ValueSource(shorts = {2, 3, 4})
    void offsetForLeaderEpochAnswersTheHighWatermarkOfEpochZero(short version) {
        append(0, 3);

        List<EpochEndOffset> answers = offsetForLeaderEpoch(
                version,
                "orders",
                List.of(
                        new int[] {0, -1, 0},
                        new int[] {1, 0, 0},
                        new int[] {0, -1, 3},
                        new int[] {0, 1, 0},
                        new int[] {0, -2, 0},
                        new int[] {2, -1, 0}));

        assertThat(answers)
                .extracting(a -> Errors.forCode(a.errorCode()) + " " + a.leaderEpoch() + " " + a.endOffset())
                .containsExactly(
                        "NONE 0 3",
                        "NONE 0 0",
                        "NONE -1 -1",
                        "UNKNOWN_LEADER_EPOCH -1 -1",
                        "FENCED_LEADER_EPOCH -1 -1",
                        "UNKNOWN_TOPIC_OR_PARTITION -1 -1");
        assertThat(offsetForLeaderEpoch(version, "missing", List.<int[]>of(new int[] {0, -1, 0}))
                        .get(0)
                        .errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @Test
    void describeLogDirsOfAllTopicsListsEveryPartition() {
        append(1, 4);

        DescribeLogDirsResponseData response = (DescribeLogDirsResponseData)
                client.call(ApiKeys.DESCRIBE_LOG_DIRS, (short) 4, 1, new DescribeLogDirsRequestData().setTopics(null))
                        .body();

        assertThat(response.results()).singleElement().satisfies(result -> {
            assertThat(result.logDir()).isEqualTo(fixture.agent().objects().describe());
            assertThat(result.totalBytes()).isEqualTo(-1);
            assertThat(result.topics()).extracting(t -> t.name()).containsExactly("compacted", "orders");
            assertThat(result.topics().get(1).partitions())
                    .extracting(p -> p.partitionIndex() + ":" + (p.partitionSize() > 0))
                    .containsExactly("0:false", "1:true");
        });
    }

    @Test
    void electLeadersForAllPartitionsAnswersNone() {
        ElectLeadersResponseData all = (ElectLeadersResponseData) client.call(
                        ApiKeys.ELECT_LEADERS,
                        (short) 2,
                        1,
                        new ElectLeadersRequestData().setElectionType((byte) 0).setTopicPartitions(null))
                .body();
        ElectLeadersResponseData badType = (ElectLeadersResponseData) client.call(
                        ApiKeys.ELECT_LEADERS,
                        (short) 2,
                        2,
                        new ElectLeadersRequestData().setElectionType((byte) 7).setTopicPartitions(null))
                .body();
        ElectLeadersRequestData named = new ElectLeadersRequestData();
        named.topicPartitions()
                .add(new ElectLeadersRequestData.TopicPartitions()
                        .setTopic("orders")
                        .setPartitions(List.of(0, 5)));
        ElectLeadersResponseData v0 = (ElectLeadersResponseData)
                client.call(ApiKeys.ELECT_LEADERS, (short) 0, 3, named).body();

        assertThat(all.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(all.replicaElectionResults()).isEmpty();
        assertThat(badType.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(v0.replicaElectionResults().get(0).partitionResult())
                .extracting(p -> Errors.forCode(p.errorCode()))
                .containsExactly(Errors.ELECTION_NOT_NEEDED, Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    private void append(int partition, int records) {
        SimpleRecord[] batch = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            batch[i] = new SimpleRecord(System.currentTimeMillis(), ("r" + i).getBytes());
        }
        fixture.agent()
                .produce()
                .append(
                        orders,
                        partition,
                        MemoryRecords.withRecords(Compression.NONE, batch).buffer())
                .join();
    }

    private AlterConfigsResponseData alterConfigs(
            short version, boolean validateOnly, byte type, String name, Map<String, String> configs) {
        AlterConfigsRequestData request = new AlterConfigsRequestData().setValidateOnly(validateOnly);
        AlterConfigsRequestData.AlterConfigsResource resource = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(type)
                .setResourceName(name);
        configs.forEach((key, value) -> resource.configs()
                .add(new AlterConfigsRequestData.AlterableConfig().setName(key).setValue(value)));
        request.resources().add(resource);
        return (AlterConfigsResponseData)
                client.call(ApiKeys.ALTER_CONFIGS, version, 1, request).body();
    }

    private static IncrementalAlterConfigsRequestData.AlterConfigsResource incremental(
            byte type, String name, IncrementalAlterConfigsRequestData.AlterableConfig... operations) {
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource =
                new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                        .setResourceType(type)
                        .setResourceName(name);
        for (IncrementalAlterConfigsRequestData.AlterableConfig operation : operations) {
            resource.configs().add(operation);
        }
        return resource;
    }

    private static IncrementalAlterConfigsRequestData.AlterableConfig op(String name, int operation, String value) {
        return new IncrementalAlterConfigsRequestData.AlterableConfig()
                .setName(name)
                .setConfigOperation((byte) operation)
                .setValue(value);
    }

    private DeleteRecordsResponseData deleteRecords(String topic, Map<Integer, Long> offsets) {
        DeleteRecordsRequestData.DeleteRecordsTopic request =
                new DeleteRecordsRequestData.DeleteRecordsTopic().setName(topic);
        offsets.forEach((partition, offset) -> request.partitions()
                .add(new DeleteRecordsRequestData.DeleteRecordsPartition()
                        .setPartitionIndex(partition)
                        .setOffset(offset)));
        return (DeleteRecordsResponseData) client.call(
                        ApiKeys.DELETE_RECORDS,
                        (short) 2,
                        1,
                        new DeleteRecordsRequestData().setTimeoutMs(1000).setTopics(List.of(request)))
                .body();
    }

    /** Each int[] is {partition, current leader epoch, leader epoch}. */
    private List<EpochEndOffset> offsetForLeaderEpoch(short version, String topic, List<int[]> partitions) {
        OffsetForLeaderEpochRequestData request = new OffsetForLeaderEpochRequestData();
        request.topics()
                .add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                        .setTopic(topic)
                        .setPartitions(partitions.stream()
                                .map(p -> new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                                        .setPartition(p[0])
                                        .setCurrentLeaderEpoch(p[1])
                                        .setLeaderEpoch(p[2]))
                                .toList()));
        OffsetForLeaderEpochResponseData response =
                (OffsetForLeaderEpochResponseData) client.call(ApiKeys.OFFSET_FOR_LEADER_EPOCH, version, 1, request)
                        .body();
        return response.topics().find(topic).partitions();
    }
}
