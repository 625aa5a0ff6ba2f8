package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.ConnectionCutProxy.Cut;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.testkit.postgres.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Iceberg JDBC catalog on a real PostgreSQL, its connection cut during a table commit: after
 * PostgreSQL committed the swap (the answer is lost; the catalog's pool reconnects and runs the UPDATE
 * again, which now matches no row, so the catalog reports the commit as failed although it applied),
 * or before PostgreSQL saw it. Either way both tables stay readable, every data file their snapshots
 * reference exists, and every record is in exactly one table once, also after later rounds.
 */
@Timeout(180)
class CatalogConnectionCutIT {

    @TempDir
    Path dataDir;

    private ConnectionCutProxy proxy;
    private TableflowHarness floe;

    @AfterEach
    void stop() throws Exception {
        if (floe != null) {
            floe.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @ParameterizedTest(name = "{0}, dead letters in the round: {1}")
    @CsvSource({"AFTER_ANSWER, false", "AFTER_ANSWER, true", "BEFORE_SERVER, false", "BEFORE_SERVER, true"})
    void aConnectionCutDuringATableCommitLeavesEveryRecordReadableExactlyOnce(Cut cut, boolean deadLetters)
            throws Exception {
        TestPostgres postgres = TestPostgres.get();
        String direct = postgres.createDatabase();
        proxy = new ConnectionCutProxy(postgres.port());
        String viaProxy = direct.replace(":" + postgres.port() + "/", ":" + proxy.port() + "/")
                + "?prepareThreshold=0&sslmode=disable";
        floe = new TableflowHarness(
                dataDir,
                (warehouse, io) ->
                        IcebergCatalogs.jdbc(viaProxy, TestPostgres.USER, TestPostgres.PASSWORD, warehouse, io));
        JsonRounds rounds = new JsonRounds(
                floe,
                dataDir.resolve("spool"),
                TableflowConfig.defaults(dataDir.resolve("spool")).maxBytesPerRound());
        rounds.produceRound(0, true);
        rounds.pollUntilCaughtUp();

        // The round's first catalog commit is its dead letters' when it has some, else its rows'.
        rounds.produceRound(1, deadLetters);
        proxy.arm(cut);
        rounds.poll();
        assertThat(proxy.cuts()).isEqualTo(1);

        rounds.produceRound(2, true);
        rounds.pollUntilCaughtUp();
        rounds.assertEveryRecordOnceAndEveryFilePresent();
    }
}
