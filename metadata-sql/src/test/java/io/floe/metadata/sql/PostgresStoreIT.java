package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.testkit.metadata.RoleContract;
import io.floe.testkit.postgres.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What no role's contract says of the PostgreSQL store ({@link TestPostgres}): how it opens, fails to
 * open, migrates an empty database once among several stores, and refuses work once closed.
 */
class PostgresStoreIT {

    private static TestPostgres postgres;
    private static String database;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresTesting.server();
        database = PostgresTesting.contractDatabase();
    }

    private static MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }

    @Test
    void theCliUrlFormWithCredentialsOpensTheStore() {
        String url = "postgresql://" + TestPostgres.USER + ":" + TestPostgres.PASSWORD + "@127.0.0.1:" + postgres.port()
                + databasePath(postgres.createSchema(database));
        try (MetadataStore store = SqlMetadataStore.openPostgres(url, Clock.systemUTC())) {
            store.createTopic(new NewTopic("orders", 1, Map.of()));

            assertThat(store.topics()).hasSize(1);
            assertThat(store.describe())
                    .isEqualTo("postgresql://127.0.0.1:" + postgres.port() + "/"
                            + database.substring(database.lastIndexOf('/') + 1));
        }
    }

    @Test
    void aRefusedLoginFailsAtStartWithTheServersReasonAndNoPassword() {
        PostgresConfig config = PostgresConfig.of(database, TestPostgres.USER, "wrong-password");

        assertThatThrownBy(() -> SqlMetadataStore.openPostgres(config, Clock.systemUTC()))
                .isInstanceOfSatisfying(
                        MetadataStoreException.class,
                        e -> assertThat(e.retriable()).isFalse())
                .hasMessageContaining("password authentication failed")
                .hasMessageContaining("postgresql://127.0.0.1:" + postgres.port())
                .hasMessageNotContaining("wrong-password");
    }

    @Test
    void anUnreachableDatabaseFailsAtStartAsRetriable() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        PostgresConfig config = PostgresConfig.of(
                        "jdbc:postgresql://127.0.0.1:" + closedPort + "/floe", TestPostgres.USER, TestPostgres.PASSWORD)
                .withConnectionTimeout(Duration.ofSeconds(2));

        assertThatThrownBy(() -> SqlMetadataStore.openPostgres(config, Clock.systemUTC()))
                .isInstanceOfSatisfying(
                        MetadataStoreException.class,
                        e -> assertThat(e.retriable()).isTrue())
                .hasMessageContaining("postgresql://127.0.0.1:" + closedPort + "/floe failed to open");
    }

    @Test
    void storesStartingAtOnceOnAnEmptyDatabaseApplyEachMigrationOnce() throws Exception {
        String empty = postgres.createDatabase();
        List<Callable<MetadataStore>> opens = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            opens.add(() -> SqlMetadataStore.openPostgres(PostgresTesting.config(empty), Clock.systemUTC()));
        }

        List<MetadataStore> stores = RoleContract.runConcurrently(opens);
        try {
            stores.get(0).createTopic(new NewTopic("orders", 1, Map.of()));
            assertThat(stores.get(3).topic("orders")).isPresent();
        } finally {
            stores.forEach(MetadataStore::close);
        }
        try (Connection connection = DriverManager.getConnection(empty, TestPostgres.USER, TestPostgres.PASSWORD);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*), MAX(version) FROM schema_version")) {
            rows.next();
            assertThat(rows.getInt(1)).isEqualTo(Migrations.ALL.size());
            assertThat(rows.getInt(2)).isEqualTo(Migrations.LATEST);
        }
    }

    @Test
    void aClosedStoreRefusesWorkAndReportsCommitsAsUnknown() {
        MetadataStore store = createStore();
        store.close();
        store.close();

        assertThatThrownBy(store::topics)
                .isInstanceOf(MetadataStoreException.class)
                .hasMessageContaining("closed");
        assertThat(store.commit(new ObjectCommit(new ObjectKey("segments/00/late.seg"), 0, List.of())))
                .isInstanceOf(CommitOutcome.Unknown.class);
    }

    private static String databasePath(String jdbcUrl) {
        return jdbcUrl.substring(jdbcUrl.indexOf('/', "jdbc:postgresql://".length()));
    }
}
