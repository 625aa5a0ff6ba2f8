package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.TransactionsContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The {@link TransactionsContract} on an embedded SQLite store, each test on a fresh file. */
class SqliteTransactionsTest extends TransactionsContract {

    @TempDir
    Path directory;

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openSqlite(directory.resolve("contract").resolve("metadata.db"));
    }
}
