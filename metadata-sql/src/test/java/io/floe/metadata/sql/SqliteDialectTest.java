package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteDialectTest {

    @TempDir
    Path directory;

    @Test
    void duplicateKeysAreUniqueViolationsAndOtherConstraintsAreNot() throws SQLException {
        try (SqliteDialect dialect = SqliteDialect.open(directory.resolve("dialect.db"));
                Connection connection = dialect.openWriter();
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INTEGER CHECK (n > 0))");
            statement.execute("INSERT INTO t (id, name, n) VALUES (1, 'a', 1)");

            SQLException duplicateName = catchThrowableOfType(
                    SQLException.class, () -> statement.execute("INSERT INTO t (id, name, n) VALUES (2, 'a', 1)"));
            SQLException duplicateId = catchThrowableOfType(
                    SQLException.class, () -> statement.execute("INSERT INTO t (id, name, n) VALUES (1, 'b', 1)"));
            SQLException failedCheck = catchThrowableOfType(
                    SQLException.class, () -> statement.execute("INSERT INTO t (id, name, n) VALUES (3, 'c', 0)"));

            assertThat(dialect.uniqueViolation(duplicateName)).isTrue();
            assertThat(dialect.uniqueViolation(duplicateId)).isTrue();
            assertThat(dialect.uniqueViolation(failedCheck)).isFalse();
        }
    }
}
