package io.floe.tableflow.io;

import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Iceberg's FileIO on Floe's {@link ObjectStore}: tables live in the same store as the segments,
 * whatever its backend, with the same credentials and retries. Writes spool to a local temporary file
 * and become one create-only put on close (Iceberg names every file uniquely); reads are range reads.
 */
public final class ObjectStoreFileIO implements FileIO, SupportsPrefixOperations {

    private final ObjectStore store;
    private final ObjectLocations locations;
    private final Path spoolDirectory;

    public ObjectStoreFileIO(ObjectStore store, ObjectLocations locations, Path spoolDirectory) {
        this.store = Objects.requireNonNull(store, "store");
        this.locations = Objects.requireNonNull(locations, "locations");
        this.spoolDirectory = Objects.requireNonNull(spoolDirectory, "spoolDirectory");
    }

    public ObjectLocations locations() {
        return locations;
    }

    /** The store the files are in (the Delta log mirror writes there too). */
    public ObjectStore store() {
        return store;
    }

    @Override
    public InputFile newInputFile(String path) {
        return new ObjectInputFile(store, locations.key(path), path, -1);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return new ObjectInputFile(store, locations.key(path), path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new ObjectOutputFile(store, locations.key(path), path, spoolDirectory);
    }

    @Override
    public void deleteFile(String path) {
        store.delete(locations.key(path));
    }

    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        String keyPrefix = locations.keyPrefix(prefix);
        return store.list(keyPrefix).stream()
                .map(info -> new FileInfo(
                        locations.location(info.key()),
                        info.sizeBytes(),
                        info.lastModified().toEpochMilli()))
                .toList();
    }

    @Override
    public void deletePrefix(String prefix) {
        for (ObjectInfo info : store.list(locations.keyPrefix(prefix))) {
            store.delete(info.key());
        }
    }

    @Override
    public Map<String, String> properties() {
        return Map.of();
    }

    /** The size of {@code key}, from a listing (the store has no HEAD); absent objects throw. */
    static long sizeOf(ObjectStore store, ObjectKey key) {
        for (ObjectInfo info : store.list(key.value())) {
            if (info.key().equals(key)) {
                return info.sizeBytes();
            }
        }
        throw new ObjectNotFoundException(key);
    }
}
