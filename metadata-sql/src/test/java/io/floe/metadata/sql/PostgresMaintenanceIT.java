package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.MaintenanceContract;
import io.floe.testkit.postgres.TestPostgres;
import java.time.Clock;
import org.junit.jupiter.api.BeforeAll;

/** The maintenance contract on a real PostgreSQL server, each test on a fresh schema. */
class PostgresMaintenanceIT extends MaintenanceContract {

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
