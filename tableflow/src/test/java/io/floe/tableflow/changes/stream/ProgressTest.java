package io.floe.tableflow.changes.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.changes.Offsets;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ProgressTest {

    private static final UUID TOPIC_ID = UUID.fromString("6f1c1c8e-0c1b-4d4e-9a3e-2f0d3b1c2a10");
    private static final Offsets AT = Offsets.of(Map.of(0, 12L, 1, 40L));

    @Test
    void theGroupOffsetsRecordTheProgressAndItsTransaction() {
        Progress written = Progress.start().published(AT, 77);

        Progress read = Progress.of(written.offsets("accounts", TOPIC_ID, "changes"), "accounts", TOPIC_ID, "changes");

        assertThat(read).isEqualTo(new Progress(AT, Progress.Origin.STREAM, OptionalLong.empty(), 77, 1));
        assertThat(Progress.of(written.offsets("accounts", TOPIC_ID, "changes"), "accounts", TOPIC_ID, "other")
                        .fresh())
                .as("written for another change topic")
                .isTrue();
        assertThat(Progress.of(
                                written.offsets("accounts", TOPIC_ID, "changes"),
                                "accounts",
                                UUID.randomUUID(),
                                "changes")
                        .fresh())
                .as("written for an earlier topic of the name")
                .isTrue();
    }

    @Test
    void aSnapshotUnderWayIsReadBack() {
        Progress reading = Progress.start().readingTo(5, AT);

        Progress read = Progress.of(reading.offsets("accounts", TOPIC_ID, "changes"), "accounts", TOPIC_ID, "changes");

        assertThat(read.reading()).hasValue(5);
        assertThat(read.next()).isEqualTo(AT);
    }

    @Test
    void offsetsWithoutTheStreamsMetadataAreAnOperatorsMove() {
        Progress written = Progress.start().published(AT, 77);
        Map<TopicPartition, OffsetAndMetadata> offsets =
                new java.util.HashMap<>(written.offsets("accounts", TOPIC_ID, "changes"));
        offsets.put(new TopicPartition("accounts", 1), new OffsetAndMetadata(0));

        Progress read = Progress.of(offsets, "accounts", TOPIC_ID, "changes");

        assertThat(read.origin()).isEqualTo(Progress.Origin.OPERATOR);
        assertThat(read.next()).isEqualTo(Offsets.of(Map.of(0, 12L, 1, 0L)));
        assertThat(Progress.of(Map.of(), "accounts", TOPIC_ID, "changes").fresh())
                .isTrue();
    }

    @Test
    void theHeaderCarriesTheWholePosition() {
        Progress written = Progress.start().published(AT, 77).published(Offsets.of(Map.of(0, 13L, 1, 41L)), 78);

        assertThat(Progress.ofHeader(written.header(TOPIC_ID, "changes"), TOPIC_ID, "changes"))
                .isEqualTo(new Progress.Read.Ours(written));
        assertThat(Progress.ofHeader(written.header(TOPIC_ID, "changes"), TOPIC_ID, "elsewhere"))
                .isInstanceOf(Progress.Read.Elsewhere.class);
        assertThat(Progress.ofHeader("not ours", TOPIC_ID, "changes")).isInstanceOf(Progress.Read.Unreadable.class);
        Progress empty = Progress.start().readingTo(9, Offsets.START);
        assertThat(Progress.ofHeader(empty.header(TOPIC_ID, "changes"), TOPIC_ID, "changes"))
                .isEqualTo(new Progress.Read.Ours(empty));
    }
}
