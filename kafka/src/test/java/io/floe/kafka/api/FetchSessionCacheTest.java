package io.floe.kafka.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.PrimitiveIterator;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FetchSessionTopicIdException;
import org.apache.kafka.common.errors.InvalidFetchSessionEpochException;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

/** The fetch session cache's bound and ids, and a session's epochs, updates and change tracking. */
class FetchSessionCacheTest {

    private static final FetchSession.Key P0 = new FetchSession.Key(Uuid.ZERO_UUID, "orders", 0);
    private static final FetchSession.Key P1 = new FetchSession.Key(Uuid.ZERO_UUID, "orders", 1);

    @Test
    void skipsUnusableIdsAndEvictsTheLeastRecentlyUsedSessionWhenFull() {
        PrimitiveIterator.OfInt ids = IntStream.of(0, -5, 7, 7, 8, 9).iterator();
        FetchSessionCache cache = new FetchSessionCache(2, ids::nextInt);

        FetchSession first = cache.create(false, entries(P0));
        FetchSession second = cache.create(false, entries(P0));
        cache.get(first.id());
        FetchSession third = cache.create(false, entries(P0));

        assertThat(List.of(first.id(), second.id(), third.id())).containsExactly(7, 8, 9);
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.get(second.id())).isEmpty();
        assertThat(cache.get(first.id())).containsSame(first);
        assertThat(cache.get(third.id())).containsSame(third);
    }

    @Test
    void acceptsOnlyTheNextEpochAndTheSameTopicNaming() {
        FetchSession session = new FetchSession(1, false, entries(P0));

        assertThatThrownBy(() -> session.update(2, false, List.of(), List.of()))
                .isInstanceOf(InvalidFetchSessionEpochException.class);
        assertThatThrownBy(() -> session.update(1, true, List.of(), List.of()))
                .isInstanceOf(FetchSessionTopicIdException.class);
        session.update(1, false, List.of(), List.of());
        session.update(2, false, List.of(), List.of());
        assertThatThrownBy(() -> session.update(2, false, List.of(), List.of()))
                .isInstanceOf(InvalidFetchSessionEpochException.class);
    }

    @Test
    void addsUpdatesAndForgetsPartitions() {
        FetchSession session = new FetchSession(1, false, entries(P0));

        List<FetchSession.Entry> fetched = session.update(
                1, false, List.of(new FetchSession.Entry(P1, 5, 100), new FetchSession.Entry(P0, 42, 200)), List.of());

        assertThat(fetched).containsExactly(new FetchSession.Entry(P0, 42, 200), new FetchSession.Entry(P1, 5, 100));
        assertThat(session.update(2, false, List.of(), List.of(P0, P1))).isEmpty();
        assertThat(session.isEmpty()).isTrue();
    }

    @Test
    void incrementalResponsesCarryOnlyPartitionsWithNews() {
        FetchSession session = new FetchSession(1, false, entries(P0, P1));

        assertThat(session.recordResponse(P0, data(10, 0, 0)))
                .as("first answer")
                .isTrue();
        assertThat(session.recordResponse(P1, data(3, 0, 0))).isTrue();
        assertThat(session.recordResponse(P0, data(10, 0, 0))).as("nothing new").isFalse();
        assertThat(session.recordResponse(P0, data(11, 0, 0)))
                .as("watermark moved")
                .isTrue();
        assertThat(session.recordResponse(P0, data(11, 1, 0)))
                .as("log start moved")
                .isTrue();
        assertThat(session.recordResponse(P0, data(11, 1, 2))).as("records").isTrue();
        assertThat(session.recordResponse(
                        P0,
                        new PartitionData()
                                .setErrorCode(Errors.KAFKA_STORAGE_ERROR.code())
                                .setHighWatermark(-1)
                                .setLogStartOffset(-1)))
                .as("error")
                .isTrue();
        assertThat(session.recordResponse(P0, data(11, 1, 0)))
                .as("error cleared")
                .isTrue();
    }

    @Test
    void partitionsThatReturnedRecordsMoveToTheBack() {
        FetchSession session = new FetchSession(1, false, entries(P0, P1));

        session.recordResponse(P0, data(10, 0, 1));

        assertThat(session.update(1, false, List.of(), List.of()))
                .extracting(FetchSession.Entry::key)
                .containsExactly(P1, P0);
    }

    private static List<FetchSession.Entry> entries(FetchSession.Key... keys) {
        return java.util.Arrays.stream(keys)
                .map(key -> new FetchSession.Entry(key, 0, 1024))
                .toList();
    }

    private static PartitionData data(long highWatermark, long logStartOffset, int records) {
        MemoryRecords payload = records == 0
                ? MemoryRecords.EMPTY
                : MemoryRecords.withRecords(
                        org.apache.kafka.common.compress.Compression.NONE,
                        new org.apache.kafka.common.record.internal.SimpleRecord("v".getBytes()));
        return new PartitionData()
                .setHighWatermark(highWatermark)
                .setLogStartOffset(logStartOffset)
                .setRecords(payload);
    }
}
