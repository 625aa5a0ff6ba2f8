package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.ConsumerOffsetsContract;

/** The {@link ConsumerOffsetsContract} on the shared PostgreSQL test server, each test on a fresh schema. */
class PostgresConsumerOffsetsIT extends ConsumerOffsetsContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }
}
