package io.floe.tableflow.io;

import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/** An object read through range requests; its length comes from the caller (manifests know it) or a listing. */
final class ObjectInputFile implements InputFile {

    private final ObjectStore store;
    private final ObjectKey key;
    private final String location;
    private long length;

    ObjectInputFile(ObjectStore store, ObjectKey key, String location, long length) {
        this.store = store;
        this.key = key;
        this.location = location;
        this.length = length;
    }

    @Override
    public long getLength() {
        if (length < 0) {
            try {
                length = ObjectStoreFileIO.sizeOf(store, key);
            } catch (ObjectNotFoundException e) {
                throw new NotFoundException(e, "File does not exist: %s", location);
            }
        }
        return length;
    }

    @Override
    public SeekableInputStream newStream() {
        return new ObjectInputStream(store, key, location, getLength());
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public boolean exists() {
        try {
            getLength();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }
}
