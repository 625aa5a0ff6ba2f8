package io.floe.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;

class MarkerBatchTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    @Test
    void aMarkerIsAControlBatchKafkaClientsReadBackAtItsOffset() {
        TransactionMarker marker = new TransactionMarker(TP, 1234, 77, (short) 3, true, 1200, 5, 1_700_000_000_000L);

        ByteBuffer bytes = MarkerBatch.encode(marker);

        assertThat(bytes.remaining()).isEqualTo(TransactionMarker.SIZE_IN_BYTES);
        List<MutableRecordBatch> batches = batches(bytes);
        assertThat(batches).hasSize(1);
        MutableRecordBatch batch = batches.get(0);
        batch.ensureValid();
        assertThat(batch.isControlBatch()).isTrue();
        assertThat(batch.isTransactional()).isTrue();
        assertThat(batch.baseOffset()).isEqualTo(1234);
        assertThat(batch.lastOffset()).isEqualTo(1234);
        assertThat(batch.producerId()).isEqualTo(77);
        assertThat(batch.producerEpoch()).isEqualTo((short) 3);
        assertThat(batch.maxTimestamp()).isEqualTo(1_700_000_000_000L);
        Record record = batch.iterator().next();
        EndTransactionMarker end = EndTransactionMarker.deserialize(record);
        assertThat(end.controlType()).isEqualTo(ControlRecordType.COMMIT);
        assertThat(end.coordinatorEpoch()).isEqualTo(5);
    }

    @Test
    void anAbortIsAnAbortMarker() {
        TransactionMarker marker = new TransactionMarker(TP, 9, 1, (short) 0, false, 2, 0, 0);

        ByteBuffer bytes = MarkerBatch.encode(marker);

        assertThat(bytes.remaining()).isEqualTo(TransactionMarker.SIZE_IN_BYTES);
        Record record = batches(bytes).get(0).iterator().next();
        assertThat(EndTransactionMarker.deserialize(record).controlType()).isEqualTo(ControlRecordType.ABORT);
    }

    @Test
    void onlyAnAbortMarkerReadsAsAnAbort() {
        ByteBuffer abort = MarkerBatch.encode(new TransactionMarker(TP, 9, 1, (short) 0, false, 2, 0, 0));
        ByteBuffer commit = MarkerBatch.encode(new TransactionMarker(TP, 9, 1, (short) 0, true, 2, 0, 0));
        ByteBuffer data = NewBatch.transactional(1, (short) 0, 0, List.of(new NewBatch.Entry(0, null, new byte[] {1})));

        assertThat(MarkerBatch.isAbort(StoredBatch.of(abort))).isTrue();
        assertThat(MarkerBatch.isAbort(StoredBatch.of(commit))).isFalse();
        assertThat(MarkerBatch.isAbort(StoredBatch.of(data))).isFalse();
        assertThat(StoredBatch.of(data).isTransactional()).isTrue();
    }

    private static List<MutableRecordBatch> batches(ByteBuffer bytes) {
        List<MutableRecordBatch> batches = new ArrayList<>();
        MemoryRecords.readableRecords(bytes.duplicate()).batches().forEach(batches::add);
        return batches;
    }
}
