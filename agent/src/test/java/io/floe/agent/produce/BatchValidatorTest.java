package io.floe.agent.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.agent.produce.InvalidBatchException.Reason;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.TransactionalAppend;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BatchValidatorTest {

    private static final TopicPartition TP = new TopicPartition("orders", 3);

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void acceptsOneWellFormedBatchInEveryCompression(CompressionType type) {
        ByteBuffer records = records(Compression.of(type).build(), 5);

        ValidatedBatch batch = BatchValidator.validate(TP, records, 1_048_588);

        assertThat(batch.recordCount()).isEqualTo(5);
        assertThat(batch.maxTimestamp()).isEqualTo(1_004L);
        assertThat(batch.producer().idempotent()).isFalse();
        assertThat(batch.bytes().remaining()).isEqualTo(records.remaining());
    }

    @Test
    void readsIdempotentProducerFields() {
        ByteBuffer records = MemoryRecords.withIdempotentRecords(
                        Compression.NONE,
                        77L,
                        (short) 2,
                        10,
                        new SimpleRecord(
                                1L, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)),
                        new SimpleRecord(
                                2L, "k".getBytes(StandardCharsets.UTF_8), "w".getBytes(StandardCharsets.UTF_8)))
                .buffer();

        ValidatedBatch batch = BatchValidator.validate(TP, records, 1_048_588);

        assertThat(batch.producer().producerId()).isEqualTo(77L);
        assertThat(batch.producer().producerEpoch()).isEqualTo((short) 2);
        assertThat(batch.producer().baseSequence()).isEqualTo(10);
        assertThat(batch.producer().lastSequence()).isEqualTo(11);
    }

    @Test
    void refusesABatchOverMaxMessageBytes() {
        ByteBuffer records = records(Compression.NONE, 50);

        assertThatThrownBy(() -> BatchValidator.validate(TP, records, records.remaining() - 1))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MESSAGE_TOO_LARGE))
                .hasMessageContaining("exceeds max.message.bytes")
                .hasMessageContaining("orders-3");
    }

    @Test
    void refusesAFlippedBitAsCorrupt() {
        ByteBuffer records = records(Compression.NONE, 3);
        int last = records.limit() - 1;
        records.put(last, (byte) (records.get(last) ^ 0x01));

        assertThatThrownBy(() -> BatchValidator.validate(TP, records, 1_048_588))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_MESSAGE));
    }

    @Test
    void refusesTruncatedBytesAsCorrupt() {
        ByteBuffer records = records(Compression.NONE, 3);
        records.limit(records.limit() - 7);

        assertThatThrownBy(() -> BatchValidator.validate(TP, records, 1_048_588))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class,
                        e -> assertThat(e.reason()).isIn(Reason.CORRUPT_MESSAGE, Reason.INVALID_RECORD));
    }

    @Test
    void refusesTwoBatchesForOnePartition() {
        ByteBuffer first = records(Compression.NONE, 2);
        ByteBuffer second = records(Compression.NONE, 2);
        ByteBuffer both = ByteBuffer.allocate(first.remaining() + second.remaining())
                .put(first)
                .put(second)
                .flip();

        assertThatThrownBy(() -> BatchValidator.validate(TP, both, 1_048_588))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_RECORD))
                .hasMessageContaining("exactly one record batch");
    }

    @Test
    void refusesOldMagic() {
        ByteBuffer records = MemoryRecords.withRecords(
                        RecordBatch.MAGIC_VALUE_V1,
                        Compression.NONE,
                        new SimpleRecord(1L, null, "v".getBytes(StandardCharsets.UTF_8)))
                .buffer();

        assertThatThrownBy(() -> BatchValidator.validate(TP, records, 1_048_588))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_RECORD));
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionType.class,
            names = {"NONE", "ZSTD"})
    void aCompactedTopicRefusesARecordWithoutAKey(CompressionType type) {
        ByteBuffer records = MemoryRecords.withRecords(
                        Compression.of(type).build(),
                        new SimpleRecord(
                                1L, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)),
                        new SimpleRecord(2L, null, "no key".getBytes(StandardCharsets.UTF_8)))
                .buffer();

        assertThat(BatchValidator.validate(TP, records, 1_048_588, false, TransactionalAppend.NONE)
                        .recordCount())
                .isEqualTo(2);
        assertThatThrownBy(() -> BatchValidator.validate(TP, records, 1_048_588, true, TransactionalAppend.NONE))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_RECORD))
                .hasMessageContaining("Compacted topic cannot accept message without key")
                .hasMessageContaining("record 1")
                .hasMessageContaining("orders-3");
    }

    @Test
    void aCompactedTopicAcceptsTombstones() {
        ByteBuffer records = MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord(1L, "k".getBytes(StandardCharsets.UTF_8), null))
                .buffer();

        assertThat(BatchValidator.validate(TP, records, 1_048_588, true, TransactionalAppend.NONE)
                        .recordCount())
                .isEqualTo(1);
    }

    @Test
    void refusesEmptyInputAsCorrupt() {
        assertThatThrownBy(() -> BatchValidator.validate(TP, ByteBuffer.allocate(0), 1_048_588))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_MESSAGE));
    }

    static ByteBuffer records(Compression compression, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(
                    1_000L + i,
                    ("key-" + i).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(compression, records).buffer();
    }

    @Test
    void transactionalBatchesTakeTheRequestsTransactionalAppend() {
        ByteBuffer records = MemoryRecords.withTransactionalRecords(
                        Compression.NONE, 42L, (short) 3, 0, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)))
                .buffer();

        ValidatedBatch batch =
                BatchValidator.validate(TP, records, 1_048_588, false, TransactionalAppend.JOINS_TRANSACTION);

        assertThat(batch.transaction()).isEqualTo(TransactionalAppend.JOINS_TRANSACTION);
        assertThat(batch.producer().producerId()).isEqualTo(42L);
    }

    @Test
    void plainBatchesOfATransactionalRequestStayOutsideTheTransaction() {
        ByteBuffer records = MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)))
                .buffer();

        assertThat(BatchValidator.validate(TP, records, 1_048_588, false, TransactionalAppend.IN_TRANSACTION)
                        .transaction())
                .isEqualTo(TransactionalAppend.NONE);
    }

    @Test
    void transactionalBatchWithoutTransactionalIdIsRefused() {
        ByteBuffer records = MemoryRecords.withTransactionalRecords(
                        Compression.NONE, 42L, (short) 3, 0, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)))
                .buffer();

        assertThatThrownBy(() -> BatchValidator.validate(TP, records, 1_048_588, false, TransactionalAppend.NONE))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_RECORD))
                .hasMessageContaining("transactional id");
    }

    @Test
    void controlBatchesFromClientsAreRefused() {
        ByteBuffer marker = MemoryRecords.withEndTransactionMarker(
                        42L, (short) 3, new EndTransactionMarker(ControlRecordType.COMMIT, 0))
                .buffer();

        assertThatThrownBy(
                        () -> BatchValidator.validate(TP, marker, 1_048_588, false, TransactionalAppend.IN_TRANSACTION))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_RECORD))
                .hasMessageContaining("control batches");
    }
}
