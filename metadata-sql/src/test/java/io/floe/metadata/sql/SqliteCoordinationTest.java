package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.CoordinationContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteCoordinationTest extends CoordinationContract {

    @TempDir
    Path directory;

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openSqlite(directory.resolve("metadata.db"));
    }
}
