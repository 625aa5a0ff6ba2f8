package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.LogReadsContract;

/** The {@link LogReadsContract} on the shared PostgreSQL test server, each test on a fresh schema. */
class PostgresLogReadsIT extends LogReadsContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }
}
