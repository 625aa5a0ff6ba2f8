package io.floe.core.record;

import java.nio.ByteBuffer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.Record;

/**
 * One record of a {@link StoredBatch}, viewed in place: its offset (the batch's base offset plus its
 * delta), timestamp, key, value and headers. Key and value are read-only views of the batch's bytes
 * (or of its decompressed records); copy them to keep them.
 */
public final class StoredRecord {

    private final Record record;

    StoredRecord(Record record) {
        this.record = record;
    }

    public long offset() {
        return record.offset();
    }

    public long timestamp() {
        return record.timestamp();
    }

    public boolean hasKey() {
        return record.hasKey();
    }

    /** The key, or null when the record has none. */
    public ByteBuffer key() {
        return record.key();
    }

    public boolean hasValue() {
        return record.hasValue();
    }

    /** The value, or null for a tombstone. */
    public ByteBuffer value() {
        return record.value();
    }

    /** The value's size in bytes, -1 for a tombstone. */
    public int valueSize() {
        return record.valueSize();
    }

    public Header[] headers() {
        return record.headers();
    }
}
