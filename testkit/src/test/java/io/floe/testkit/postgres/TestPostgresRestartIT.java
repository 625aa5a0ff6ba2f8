package io.floe.testkit.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** A private server survives its restart with what was committed, on the same port, and cuts sessions. */
class TestPostgresRestartIT {

    @Test
    void aRestartedPrivateServerKeepsItsPortAndCommittedRows() throws SQLException {
        try (TestPostgres postgres = TestPostgres.startPrivate()) {
            String url = postgres.createDatabase();
            try (Connection connection = DriverManager.getConnection(url, TestPostgres.USER, TestPostgres.PASSWORD);
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE t (v int)");
                statement.execute("INSERT INTO t VALUES (1)");
            }
            int port = postgres.port();

            postgres.restart();

            assertThat(postgres.port()).isEqualTo(port);
            try (Connection connection = DriverManager.getConnection(url, TestPostgres.USER, TestPostgres.PASSWORD);
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT count(*) FROM t")) {
                rows.next();
                assertThat(rows.getInt(1)).isEqualTo(1);
            }
        }
    }

    @Test
    void terminatedSessionsFailTheirNextStatement() throws SQLException {
        try (TestPostgres postgres = TestPostgres.startPrivate()) {
            String url = postgres.createDatabase();
            try (Connection connection = DriverManager.getConnection(url, TestPostgres.USER, TestPostgres.PASSWORD);
                    Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");

                assertThat(postgres.terminateSessions(url)).isEqualTo(1);

                assertThatThrownBy(() -> statement.execute("SELECT 1")).isInstanceOf(SQLException.class);
            }
        }
    }

    @Test
    void theSharedServerCannotBeRestarted() {
        assertThatThrownBy(() -> TestPostgres.get().restart())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("startPrivate");
    }
}
