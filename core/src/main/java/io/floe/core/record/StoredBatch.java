package io.floe.core.record;

import java.nio.ByteBuffer;
import java.util.Iterator;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/** Read access to one stored record batch's bytes. */
public final class StoredBatch {

    private StoredBatch() {}

    /** Views {@code bytes} (exactly one batch) as a record batch, without copying. */
    public static MutableRecordBatch of(ByteBuffer bytes) {
        Iterator<MutableRecordBatch> batches = MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator();
        if (!batches.hasNext()) {
            throw new IllegalArgumentException("no complete record batch in " + bytes.remaining() + " bytes");
        }
        return batches.next();
    }

    /** True when {@code bytes} hold exactly one batch of that size whose CRC matches. */
    public static boolean isIntact(ByteBuffer bytes) {
        try {
            MutableRecordBatch batch = of(bytes);
            return batch.sizeInBytes() == bytes.remaining() && batch.isValid();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
