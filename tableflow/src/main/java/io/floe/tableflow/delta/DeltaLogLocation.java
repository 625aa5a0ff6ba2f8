package io.floe.tableflow.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectStore;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Where a table's Delta log lives: the table's location in Floe's object store, in the form
 * {@link ObjectLocations} writes ({@code file:/x}, {@code s3://bucket/x}), which is also how Kernel
 * names the table's files through {@link DeltaFileIO}.
 */
record DeltaLogLocation(ObjectStore store, ObjectLocations locations, String tablePath) {

    /** The Delta log of {@code table}; empty when it has none. Throws when it has one outside Floe's store. */
    static Optional<DeltaLogLocation> of(Table table) {
        String location = trimSlash(table.location());
        if (!(table.io() instanceof ObjectStoreFileIO io)) {
            if (table.io() instanceof SupportsPrefixOperations listing
                    && !listing.listPrefix(location + "/" + DeltaMirror.LOG_DIRECTORY + "/")
                            .iterator()
                            .hasNext()) {
                return Optional.empty();
            }
            throw new IllegalStateException("the FileIO of table " + table.name() + " is not Floe's object store");
        }
        ObjectLocations locations = io.locations();
        DeltaLogLocation log = new DeltaLogLocation(io.store(), locations, locations.location(locations.key(location)));
        return log.list().isEmpty() ? Optional.empty() : Optional.of(log);
    }

    /** The key prefix of the log's files. */
    String logPrefix() {
        return locations.keyPrefix(tablePath + "/" + DeltaMirror.LOG_DIRECTORY);
    }

    /** Every object under the log's directory, its subdirectories included. */
    List<ObjectInfo> list() {
        return store.list(logPrefix());
    }

    /** Kernel's engine on the store. */
    Engine engine() {
        return DefaultEngine.create(new DeltaFileIO(store, locations));
    }

    /** The latest version of the log as Kernel reads it; throws when the log cannot be read. */
    Snapshot latest(Engine engine) {
        return TableManager.loadSnapshot(tablePath).build(engine);
    }

    private static String trimSlash(String location) {
        return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    }
}
