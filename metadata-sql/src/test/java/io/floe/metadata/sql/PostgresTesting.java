package io.floe.metadata.sql;

import io.floe.testkit.postgres.TestPostgres;

/** Store configs for the test server ({@link TestPostgres}). */
final class PostgresTesting {

    private PostgresTesting() {}

    /** A config for the database or schema at {@code jdbcUrl}, with the server's credentials and a small pool. */
    static PostgresConfig config(String jdbcUrl) {
        return PostgresConfig.of(jdbcUrl, TestPostgres.USER, TestPostgres.PASSWORD).withPoolSize(4);
    }
}
