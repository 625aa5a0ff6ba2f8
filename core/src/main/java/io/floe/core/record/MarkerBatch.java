package io.floe.core.record;

import io.floe.core.log.TransactionMarker;
import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The bytes of a {@link TransactionMarker} as consumers read it: a v2 control batch holding one
 * {@code EndTransactionMarker} record, made by kafka-clients' own encoder, exactly
 * {@link TransactionMarker#SIZE_IN_BYTES} long.
 */
public final class MarkerBatch {

    private MarkerBatch() {}

    /** A fresh buffer with the marker's control batch: its offset, producer, outcome, coordinator epoch and time. */
    public static ByteBuffer encode(TransactionMarker marker) {
        EndTransactionMarker end = new EndTransactionMarker(
                marker.commit() ? ControlRecordType.COMMIT : ControlRecordType.ABORT, marker.coordinatorEpoch());
        return MemoryRecords.withEndTransactionMarker(
                        marker.offset(), marker.timestamp(), 0, marker.producerId(), marker.producerEpoch(), end)
                .buffer();
    }

    /** Whether {@code batch} is a control batch holding an abort marker (what a read-committed client looks for). */
    public static boolean isAbort(StoredBatch batch) {
        if (!batch.isControlBatch()) {
            return false;
        }
        for (StoredRecord record : batch.records()) {
            return ControlRecordType.parse(record.key()) == ControlRecordType.ABORT;
        }
        return false;
    }
}
