package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.CoordinationContract;
import io.floe.testkit.postgres.TestPostgres;
import java.time.Clock;
import org.junit.jupiter.api.BeforeAll;

/** The fencing contract (node ids, coordinator leases) on a real PostgreSQL server, each test on a fresh schema. */
class PostgresCoordinationIT extends CoordinationContract {

    private static TestPostgres postgres;
    private static String database;

    @BeforeAll
    static void startPostgres() {
        postgres = TestPostgres.get();
        database = postgres.createDatabase();
    }

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openPostgres(PostgresTesting.config(postgres.createSchema(database)), Clock.systemUTC());
    }
}
