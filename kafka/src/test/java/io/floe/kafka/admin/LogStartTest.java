package io.floe.kafka.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.agent.fetch.TimestampedOffset;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.kafka.AgentFixture;
import io.floe.testkit.metadata.ProduceFixture;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's view of a partition's log start as DeleteRecords moves it (what the admin tests rely on). */
class LogStartTest {

    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private Topic topic;
    private TopicPartition partition;

    @BeforeEach
    void start() {
        fixture = AgentFixture.agentOnly(dir);
        topic = fixture.agent().topics().create(new NewTopic("events", 1, Map.of()), false);
        partition = new TopicPartition("events", 0);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void timestampLookupsSkipRecordsBelowTheLogStartInsideABatch() {
        append(T0, T0 + 1, T0 + 2, T0 + 3, T0 + 4);

        assertThat(fixture.agent().offsets().deleteRecords(partition, 3)).isEqualTo(3);

        assertThat(fixture.agent().offsets().offsets(partition)).isEqualTo(new LogOffsets(3, 5));
        assertThat(fixture.agent().offsets().firstOffsetAtOrAfter(partition, T0))
                .contains(new TimestampedOffset(3, T0 + 3));
        assertThat(fixture.agent().offsets().firstOffsetAtOrAfter(partition, T0 + 4))
                .contains(new TimestampedOffset(4, T0 + 4));
    }

    @Test
    void theViewFollowsTheLogStartAndNewCommits() {
        append(T0);
        append(T0 + 1);
        append(T0 + 2);

        fixture.agent().offsets().deleteRecords(partition, 2);
        append(T0 + 3);

        assertThat(fixture.agent().offsets().offsets(partition)).isEqualTo(new LogOffsets(2, 4));
        assertThat(fixture.agent().offsets().deleteRecords(partition, 1))
                .as("never backwards")
                .isEqualTo(2);
        assertThatThrownBy(() -> fixture.agent().offsets().deleteRecords(partition, 5))
                .isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(fixture.agent().offsets().offsets(partition)).isEqualTo(new LogOffsets(2, 4));
    }

    @Test
    void aViewBehindTheStoreIsReloaded() {
        assertThat(fixture.agent().offsets().offsets(partition)).isEqualTo(LogOffsets.EMPTY);
        // Another agent's commits: the store has them, this agent's view does not.
        ProduceFixture otherAgent =
                new ProduceFixture(fixture.agent().metadata().appends());
        otherAgent.commit(otherAgent.batch(topic, 0, 10), otherAgent.batch(topic, 0, 10));

        assertThat(fixture.agent().offsets().deleteRecords(partition, 15)).isEqualTo(15);

        assertThat(fixture.agent().offsets().offsets(partition)).isEqualTo(new LogOffsets(15, 20));
    }

    private void append(long... timestamps) {
        SimpleRecord[] records = new SimpleRecord[timestamps.length];
        for (int i = 0; i < timestamps.length; i++) {
            records[i] = new SimpleRecord(timestamps[i], ("r" + i).getBytes());
        }
        fixture.agent()
                .produce()
                .append(
                        topic,
                        0,
                        MemoryRecords.withRecords(Compression.NONE, records).buffer())
                .join();
    }
}
