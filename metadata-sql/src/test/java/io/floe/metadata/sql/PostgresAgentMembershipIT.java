package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.AgentMembershipContract;

/** The {@link AgentMembershipContract} on the shared PostgreSQL test server, each test on a fresh schema. */
class PostgresAgentMembershipIT extends AgentMembershipContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }
}
