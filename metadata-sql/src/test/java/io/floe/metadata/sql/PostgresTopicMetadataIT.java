package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.TopicExistsException;
import io.floe.testkit.metadata.RoleContract;
import io.floe.testkit.metadata.TopicMetadataContract;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The {@link TopicMetadataContract} on the shared PostgreSQL test server, each test on a fresh schema,
 * plus what only a shared database has.
 */
class PostgresTopicMetadataIT extends TopicMetadataContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }

    @Test
    void concurrentCreationOfOneTopicFromManyStoresCreatesItOnce() throws Exception {
        String schema = PostgresTesting.server().createSchema(PostgresTesting.contractDatabase());
        List<MetadataStore> stores = new ArrayList<>();
        try {
            List<Callable<String>> creates = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                MetadataStore store = SqlMetadataStore.openPostgres(PostgresTesting.config(schema), Clock.systemUTC());
                stores.add(store);
                creates.add(() -> {
                    try {
                        return store.createTopic(new NewTopic("orders", 3, Map.of()))
                                .id()
                                .toString();
                    } catch (TopicExistsException e) {
                        return "exists";
                    }
                });
            }

            List<String> outcomes = RoleContract.runConcurrently(creates);

            assertThat(outcomes)
                    .filteredOn(outcome -> !outcome.equals("exists"))
                    .hasSize(1);
            assertThat(stores.get(0).topics()).hasSize(1);
            assertThat(stores.get(0).topic("orders").orElseThrow().id().toString())
                    .isIn(outcomes);
        } finally {
            stores.forEach(MetadataStore::close);
        }
    }
}
