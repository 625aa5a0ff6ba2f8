package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.postgres.TestPostgres;
import java.time.Clock;

/**
 * Store configs for the test server ({@link TestPostgres}), started once per JVM, and the database the
 * role contract suites share: each of their tests opens a store on a fresh schema of it.
 */
final class PostgresTesting {

    private static final long TIMEOUT_SECONDS = 60;
    private static String contractDatabase; // guarded by PostgresTesting.class

    private PostgresTesting() {}

    /** A config for the database or schema at {@code jdbcUrl}, with the server's credentials and a small pool. */
    static PostgresConfig config(String jdbcUrl) {
        return PostgresConfig.of(jdbcUrl, TestPostgres.USER, TestPostgres.PASSWORD)
                .withPoolSize(4);
    }

    /** The shared test server, started on first use. */
    static TestPostgres server() {
        return TestPostgres.get();
    }

    /** The database of the contract suites, created on first use. */
    static synchronized String contractDatabase() {
        if (contractDatabase == null) {
            contractDatabase = server().createDatabase();
        }
        return contractDatabase;
    }

    /** A store on a fresh, empty schema of {@link #contractDatabase()}. */
    static MetadataStore contractStore() {
        return SqlMetadataStore.openPostgres(config(server().createSchema(contractDatabase())), Clock.systemUTC());
    }
}
