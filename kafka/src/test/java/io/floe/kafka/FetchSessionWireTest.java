package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fetch sessions over the wire: created by epoch 0, then incremental answers carry only news. */
class FetchSessionWireTest {

    private static final short VERSION = 17;

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private Topic topic;
    private Uuid topicId;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
        topic = fixture.agent().topics().create(new NewTopic("orders", 2, Map.of()), false);
        topicId = new Uuid(topic.id().getMostSignificantBits(), topic.id().getLeastSignificantBits());
        append(3);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void incrementalFetchesCarryOnlyPartitionsWithNews() {
        try (WireClient client = new WireClient(fixture.server().port())) {
            FetchResponseData full = fetch(client, 0, 0, List.of(partition(0, 0), partition(1, 0)));
            assertThat(full.errorCode()).isZero();
            assertThat(full.sessionId()).isPositive();
            assertThat(full.responses()).singleElement().satisfies(response -> {
                assertThat(response.topicId()).isEqualTo(topicId);
                assertThat(response.partitions()).hasSize(2);
                assertThat(response.partitions().get(0).highWatermark()).isEqualTo(3);
                assertThat(response.partitions().get(0).records().sizeInBytes()).isPositive();
            });

            FetchResponseData nothingNew = fetch(client, full.sessionId(), 1, List.of(partition(0, 3)));
            assertThat(nothingNew.errorCode()).isZero();
            assertThat(nothingNew.sessionId()).isEqualTo(full.sessionId());
            assertThat(nothingNew.responses()).isEmpty();

            append(2);
            FetchResponseData news = fetch(client, full.sessionId(), 2, List.of());
            assertThat(news.responses()).singleElement().satisfies(response -> {
                assertThat(response.partitions()).singleElement().satisfies(partition -> {
                    assertThat(partition.partitionIndex()).isZero();
                    assertThat(partition.highWatermark()).isEqualTo(5);
                    assertThat(partition.records().sizeInBytes()).isPositive();
                });
            });

            FetchResponseData stale = fetch(client, full.sessionId(), 2, List.of());
            assertThat(stale.errorCode()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH.code());
        }
    }

    @Test
    void unknownSessionAsksTheClientToStartOver() {
        try (WireClient client = new WireClient(fixture.server().port())) {
            FetchResponseData response = fetch(client, 123456, 5, List.of(partition(0, 0)));

            assertThat(response.errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
            assertThat(response.sessionId()).isZero();
            assertThat(response.responses()).isEmpty();
        }
    }

    @Test
    void sessionlessFetchAndUnknownTopicIds() {
        try (WireClient client = new WireClient(fixture.server().port())) {
            FetchRequestData.FetchTopic unknown = new FetchRequestData.FetchTopic()
                    .setTopicId(Uuid.randomUuid())
                    .setPartitions(List.of(new FetchRequestData.FetchPartition()
                            .setPartition(0)
                            .setPartitionMaxBytes(1024)));
            FetchRequestData request = request(0, -1, List.of(partition(1, 0)))
                    .setTopics(List.of(
                            new FetchRequestData.FetchTopic()
                                    .setTopicId(topicId)
                                    .setPartitions(List.of(partition(1, 0))),
                            unknown));

            FetchResponseData response = (FetchResponseData)
                    client.call(ApiKeys.FETCH, VERSION, 1, request).body();

            assertThat(response.sessionId()).isZero();
            assertThat(response.responses()).hasSize(2);
            assertThat(response.responses().get(0).partitions().get(0).errorCode())
                    .isZero();
            assertThat(response.responses().get(1).partitions().get(0).errorCode())
                    .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        }
    }

    @Test
    void readCommittedAnswersCarryTheLastStableOffsetAndAListOfAbortedTransactions() {
        try (WireClient client = new WireClient(fixture.server().port())) {
            FetchRequestData request = request(0, -1, List.of(partition(0, 0))).setIsolationLevel((byte) 1);
            FetchResponseData committed = (FetchResponseData)
                    client.call(ApiKeys.FETCH, VERSION, 1, request).body();
            FetchResponseData uncommitted = fetch(client, 0, -1, List.of(partition(0, 0)));

            FetchResponseData.PartitionData stable =
                    committed.responses().get(0).partitions().get(0);
            assertThat(stable.records().sizeInBytes()).isPositive();
            assertThat(stable.lastStableOffset()).isEqualTo(3);
            assertThat(stable.abortedTransactions()).isEmpty();
            FetchResponseData.PartitionData any =
                    uncommitted.responses().get(0).partitions().get(0);
            assertThat(any.highWatermark()).isEqualTo(3);
            assertThat(any.abortedTransactions()).isNull();
        }
    }

    private FetchResponseData fetch(
            WireClient client, int sessionId, int epoch, List<FetchRequestData.FetchPartition> partitions) {
        return (FetchResponseData) client.call(ApiKeys.FETCH, VERSION, epoch, request(sessionId, epoch, partitions))
                .body();
    }

    private FetchRequestData request(int sessionId, int epoch, List<FetchRequestData.FetchPartition> partitions) {
        List<FetchRequestData.FetchTopic> topics = partitions.isEmpty()
                ? List.of()
                : List.of(new FetchRequestData.FetchTopic().setTopicId(topicId).setPartitions(partitions));
        return new FetchRequestData()
                .setMaxWaitMs(20)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setSessionId(sessionId)
                .setSessionEpoch(epoch)
                .setTopics(topics);
    }

    private static FetchRequestData.FetchPartition partition(int partition, long offset) {
        return new FetchRequestData.FetchPartition()
                .setPartition(partition)
                .setFetchOffset(offset)
                .setPartitionMaxBytes(1 << 20);
    }

    private void append(int records) {
        SimpleRecord[] batch = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            batch[i] = new SimpleRecord(("value-" + i).getBytes());
        }
        fixture.agent()
                .produce()
                .append(
                        topic,
                        0,
                        MemoryRecords.withRecords(Compression.NONE, batch).buffer())
                .join();
    }
}
