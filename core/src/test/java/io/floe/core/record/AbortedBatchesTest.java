package io.floe.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.AbortedTransaction;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class AbortedBatchesTest {

    private static final long PRODUCER = 9;
    private final AbortedBatches aborted = AbortedBatches.of(List.of(new AbortedTransaction(PRODUCER, 5, 8)));

    @Test
    void aTransactionalBatchOfTheProducerInsideTheRangeIsAborted() {
        assertThat(aborted.aborted(transactional(PRODUCER, 5))).isTrue();
        assertThat(aborted.aborted(transactional(PRODUCER, 7))).isTrue();
    }

    @Test
    void batchesOutsideTheRangeOrOfOtherProducersAreNot() {
        assertThat(aborted.aborted(transactional(PRODUCER, 4))).isFalse();
        assertThat(aborted.aborted(transactional(PRODUCER, 8)))
                .as("the marker ends the range")
                .isFalse();
        assertThat(aborted.aborted(transactional(PRODUCER + 1, 6))).isFalse();
        StoredBatch idempotent = StoredBatch.of(MemoryRecords.withIdempotentRecords(
                        6, Compression.NONE, PRODUCER, (short) 0, 0, 0, new SimpleRecord(1L, null, new byte[] {1}))
                .buffer());
        assertThat(aborted.aborted(idempotent)).as("not transactional").isFalse();
        assertThat(AbortedBatches.of(List.of()).aborted(transactional(PRODUCER, 6)))
                .isFalse();
    }

    private static StoredBatch transactional(long producerId, long baseOffset) {
        return StoredBatch.of(MemoryRecords.withTransactionalRecords(
                        baseOffset,
                        Compression.NONE,
                        producerId,
                        (short) 0,
                        0,
                        0,
                        new SimpleRecord(1L, null, new byte[] {1}))
                .buffer());
    }
}
