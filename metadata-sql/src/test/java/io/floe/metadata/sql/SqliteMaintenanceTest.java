package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.MaintenanceContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteMaintenanceTest extends MaintenanceContract {

    @TempDir
    Path directory;

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openSqlite(directory.resolve("metadata.db"));
    }
}
