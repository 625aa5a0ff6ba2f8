package io.floe.core.record;

import java.util.Iterator;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/** The records of one batch read one at a time; closing releases the decompression state. */
public final class RecordIterator implements Iterator<StoredRecord>, AutoCloseable {

    private final CloseableIterator<Record> records;

    RecordIterator(CloseableIterator<Record> records) {
        this.records = records;
    }

    @Override
    public boolean hasNext() {
        return records.hasNext();
    }

    @Override
    public StoredRecord next() {
        return new StoredRecord(records.next());
    }

    @Override
    public void close() {
        records.close();
    }
}
