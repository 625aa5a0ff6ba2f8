package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.LeasesContract;

/** The {@link LeasesContract} on the shared PostgreSQL test server, each test on a fresh schema. */
class PostgresLeasesIT extends LeasesContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }
}
