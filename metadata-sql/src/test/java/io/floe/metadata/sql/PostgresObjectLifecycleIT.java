package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.ObjectLifecycleContract;

/** The {@link ObjectLifecycleContract} on the shared PostgreSQL test server, each test on a fresh schema. */
class PostgresObjectLifecycleIT extends ObjectLifecycleContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }
}
