package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.object.ObjectKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What no role's contract says of the embedded SQLite store: one process holds a file at a time,
 * opening creates and migrates it, a newer schema is refused, a closed store fails.
 */
class SqliteStoreTest {

    @TempDir
    Path directory;

    @Test
    void aSecondStoreOnTheSameFileFailsUntilTheFirstCloses() {
        Path file = directory.resolve("locked.db");
        MetadataStore first = SqlMetadataStore.openSqlite(file);

        assertThatThrownBy(() -> SqlMetadataStore.openSqlite(file))
                .isInstanceOfSatisfying(
                        MetadataStoreException.class,
                        e -> assertThat(e.retriable()).isFalse())
                .hasMessageContaining(file.toString())
                .hasMessageContaining("another Floe agent is using this embedded metadata store");

        first.close();
        SqlMetadataStore.openSqlite(file).close();
    }

    @Test
    void aStoreHeldByAnotherProcessCannotBeOpened() throws Exception {
        Path file = directory.resolve("other-process.db");
        Process holder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        LockHolder.class.getName(),
                        file.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (BufferedReader output =
                new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(output.readLine()).startsWith("opened sqlite:");

            assertThatThrownBy(() -> SqlMetadataStore.openSqlite(file))
                    .isInstanceOf(MetadataStoreException.class)
                    .hasMessageContaining("another Floe agent is using this embedded metadata store");

            holder.getOutputStream().close();
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(holder.exitValue()).isZero();
        } finally {
            holder.destroyForcibly();
        }
        SqlMetadataStore.openSqlite(file).close();
    }

    @Test
    void openingCreatesTheDirectoriesAndRecordsTheSchemaVersion() throws SQLException {
        Path file = directory.resolve("a").resolve("b").resolve("metadata.db");
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            assertThat(store.describe()).isEqualTo("sqlite:" + file.toAbsolutePath());
        }

        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            assertThat(Migrations.currentVersion(connection)).isEqualTo(Migrations.LATEST);
            assertThat(queryString(connection, "PRAGMA journal_mode")).isEqualTo("wal");
        }
    }

    @Test
    void aDatabaseFromANewerFloeIsRefused() throws SQLException {
        Path file = directory.resolve("newer.db");
        SqlMetadataStore.openSqlite(file).close();
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "INSERT INTO schema_version (version, description, applied_at) VALUES (999, 'future', 0)");
        }

        assertThatThrownBy(() -> SqlMetadataStore.openSqlite(file))
                .isInstanceOf(MetadataStoreException.class)
                .hasMessageContaining("schema version 999")
                .hasMessageContaining("newer than this Floe supports (" + Migrations.LATEST + ")");
        // The failed open released the lock.
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM schema_version WHERE version = 999");
        }
        SqlMetadataStore.openSqlite(file).close();
    }

    @Test
    void operationsOnAClosedStoreFail() {
        MetadataStore store = SqlMetadataStore.openSqlite(directory.resolve("closed.db"));
        store.close();
        store.close();

        assertThatThrownBy(() -> store.topics())
                .isInstanceOf(MetadataStoreException.class)
                .hasMessageContaining("closed");
        assertThat(store.commit(new ObjectCommit(new ObjectKey("segments/00/late.seg"), 0, List.of())))
                .isInstanceOf(CommitOutcome.Unknown.class);
    }

    private static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
