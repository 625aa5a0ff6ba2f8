package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.TransactionsContract;

/** The {@link TransactionsContract} on the shared PostgreSQL test server, each test on a fresh schema. */
class PostgresTransactionsIT extends TransactionsContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }
}
