package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.LogRetentionContract;

/** The {@link LogRetentionContract} on the shared PostgreSQL test server, each test on a fresh schema. */
class PostgresLogRetentionIT extends LogRetentionContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }
}
