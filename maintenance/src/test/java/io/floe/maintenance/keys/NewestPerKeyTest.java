package io.floe.maintenance.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.AbortedTransaction;
import io.floe.core.record.AbortedBatches;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class NewestPerKeyTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final long DELETE_RETENTION_MS = 60_000;

    @ParameterizedTest
    @EnumSource(
            value = CompressionType.class,
            names = {"NONE", "LZ4", "ZSTD"})
    void removesSupersededRecordsAndKeepsTheBatchOffsets(CompressionType type) {
        ByteBuffer batch = batch(
                Compression.of(type).build(),
                100,
                record("a", "1"),
                record("b", "2"),
                record("a", "3"),
                record("c", "4"));
        KeyOffsetMap newest = map("a", 102, "b", 101, "c", 200);

        NewestPerKey.Outcome outcome = new NewestPerKey(newest, NOW, DELETE_RETENTION_MS).filter(batch);

        assertThat(outcome).isInstanceOfSatisfying(NewestPerKey.Outcome.Rewritten.class, rewritten -> {
            assertThat(rewritten.recordsRemoved()).isEqualTo(2);
            MutableRecordBatch kept = kafkaBatch(rewritten);
            assertThat(kept.isValid()).isTrue();
            assertThat(kept.compressionType()).isEqualTo(type);
            assertThat(kept.baseOffset()).isEqualTo(100);
            assertThat(kept.lastOffset()).as("the last offset stays").isEqualTo(103);
            assertThat(kept.countOrNull()).isEqualTo(2);
            assertThat(values(kept)).containsExactly("101=b:2", "102=a:3");
        });
    }

    @Test
    void aBatchWithNothingToRemoveIsUnchanged() {
        ByteBuffer batch = batch(Compression.NONE, 0, record("a", "1"), record("b", "2"));

        NewestPerKey.Outcome outcome = new NewestPerKey(map("a", 0), NOW, DELETE_RETENTION_MS).filter(batch);

        assertThat(outcome).isInstanceOf(NewestPerKey.Outcome.Unchanged.class);
        assertThat(outcome.recordsRemoved()).isZero();
    }

    @Test
    void aBatchLeftEmptyIsRemoved() {
        ByteBuffer batch = batch(Compression.NONE, 10, record("a", "1"), record("a", "2"));

        NewestPerKey.Outcome outcome = new NewestPerKey(map("a", 50), NOW, DELETE_RETENTION_MS).filter(batch);

        assertThat(outcome).isEqualTo(new NewestPerKey.Outcome.Removed(2));
    }

    @Test
    void recordsWithoutAKeyAreRemovedAsKafkaDoes() {
        ByteBuffer batch = batch(Compression.NONE, 0, record("a", "1"), new SimpleRecord(NOW, null, bytes("x")));

        NewestPerKey.Outcome outcome = new NewestPerKey(map(), NOW, DELETE_RETENTION_MS).filter(batch);

        assertThat(outcome)
                .isInstanceOfSatisfying(
                        NewestPerKey.Outcome.Rewritten.class,
                        rewritten -> assertThat(values(kafkaBatch(rewritten))).containsExactly("0=a:1"));
    }

    @Test
    void aTombstoneIsStampedWithItsHorizonOnItsFirstCleaningAndRemovedAfterIt() {
        ByteBuffer batch = batch(Compression.NONE, 0, record("a", "1"), new SimpleRecord(NOW - 5, bytes("b"), null));

        NewestPerKey first = new NewestPerKey(map(), NOW, DELETE_RETENTION_MS);
        NewestPerKey.Outcome stamped = first.filter(batch);

        assertThat(stamped).isInstanceOfSatisfying(NewestPerKey.Outcome.Rewritten.class, rewritten -> {
            assertThat(rewritten.recordsRemoved()).isZero();
            assertThat(kafkaBatch(rewritten).deleteHorizonMs()).hasValue(NOW + DELETE_RETENTION_MS);
            assertThat(timestamps(kafkaBatch(rewritten)))
                    .as("record timestamps survive the new base timestamp")
                    .containsExactly(NOW, NOW - 5);
        });
        assertThat(first.tombstoneHorizonMs()).isEqualTo(NOW + DELETE_RETENTION_MS);
        ByteBuffer stampedBytes = ((NewestPerKey.Outcome.Rewritten) stamped).bytes();

        NewestPerKey before = new NewestPerKey(map(), NOW + DELETE_RETENTION_MS - 1, DELETE_RETENTION_MS);
        assertThat(before.filter(stampedBytes)).isInstanceOf(NewestPerKey.Outcome.Unchanged.class);
        assertThat(before.tombstoneHorizonMs()).isEqualTo(NOW + DELETE_RETENTION_MS);

        NewestPerKey after = new NewestPerKey(map(), NOW + DELETE_RETENTION_MS, DELETE_RETENTION_MS);
        assertThat(after.filter(stampedBytes))
                .isInstanceOfSatisfying(
                        NewestPerKey.Outcome.Rewritten.class,
                        rewritten -> assertThat(values(kafkaBatch(rewritten))).containsExactly("0=a:1"));
        assertThat(after.tombstoneHorizonMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aTombstoneIsKeptThroughOneCleaningEvenWithZeroRetention() {
        ByteBuffer batch = batch(Compression.NONE, 0, new SimpleRecord(NOW, bytes("b"), null));

        assertThat(new NewestPerKey(map(), NOW, 0).filter(batch)).isInstanceOf(NewestPerKey.Outcome.Rewritten.class);
    }

    @Test
    void aSupersededTombstoneGoesAtOnce() {
        ByteBuffer batch = batch(Compression.NONE, 0, new SimpleRecord(NOW, bytes("b"), null), record("c", "1"));

        NewestPerKey.Outcome outcome = new NewestPerKey(map("b", 9), NOW, DELETE_RETENTION_MS).filter(batch);

        assertThat(outcome).isInstanceOfSatisfying(NewestPerKey.Outcome.Rewritten.class, rewritten -> {
            assertThat(values(kafkaBatch(rewritten))).containsExactly("1=c:1");
            assertThat(kafkaBatch(rewritten).deleteHorizonMs()).isEmpty();
        });
    }

    @Test
    void recordsOfAnAbortedTransactionAreRemovedAndOthersOfItsProducerKept() {
        long producerId = 77;
        ByteBuffer aborted = MemoryRecords.withTransactionalRecords(
                        10, Compression.NONE, producerId, (short) 0, 0, 0, record("a", "aborted"))
                .buffer();
        ByteBuffer committed = MemoryRecords.withTransactionalRecords(
                        20, Compression.NONE, producerId, (short) 0, 1, 0, record("b", "committed"))
                .buffer();
        NewestPerKey filter = new NewestPerKey(map("a", 10, "b", 20), NOW, DELETE_RETENTION_MS);
        filter.skip(AbortedBatches.of(List.of(new AbortedTransaction(producerId, 10, 11))));

        assertThat(filter.filter(aborted)).isEqualTo(new NewestPerKey.Outcome.Removed(1));
        assertThat(filter.filter(committed)).isInstanceOf(NewestPerKey.Outcome.Unchanged.class);
    }

    static ByteBuffer batch(Compression compression, long baseOffset, SimpleRecord... records) {
        return MemoryRecords.withRecords(baseOffset, compression, records).buffer();
    }

    static SimpleRecord record(String key, String value) {
        return new SimpleRecord(NOW, bytes(key), bytes(value));
    }

    private static KeyOffsetMap map(Object... keysAndOffsets) {
        KeyOffsetMap map = new KeyOffsetMap(64 * 1024);
        for (int i = 0; i < keysAndOffsets.length; i += 2) {
            map.put(ByteBuffer.wrap(bytes((String) keysAndOffsets[i])), ((Number) keysAndOffsets[i + 1]).longValue());
        }
        return map;
    }

    /** The rewritten batch as kafka-clients reads it, to check its header as Kafka would. */
    private static MutableRecordBatch kafkaBatch(NewestPerKey.Outcome.Rewritten rewritten) {
        return MemoryRecords.readableRecords(rewritten.bytes().duplicate())
                .batches()
                .iterator()
                .next();
    }

    private static List<String> values(MutableRecordBatch batch) {
        List<String> values = new ArrayList<>();
        for (Record record : batch) {
            values.add(record.offset() + "=" + text(record.key()) + ":" + text(record.value()));
        }
        return values;
    }

    private static List<Long> timestamps(MutableRecordBatch batch) {
        List<Long> timestamps = new ArrayList<>();
        for (Record record : batch) {
            timestamps.add(record.timestamp());
        }
        return timestamps;
    }

    private static String text(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
