package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProducerExpiryTest {

    private Connection connection;

    @BeforeEach
    void createTable() throws SQLException {
        connection = DriverManager.getConnection("jdbc:sqlite::memory:");
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE producer_state (partition_id BIGINT NOT NULL, producer_id BIGINT NOT NULL,"
                    + " written_at BIGINT, txn_first_offset BIGINT, PRIMARY KEY (partition_id, producer_id))");
            statement.execute("INSERT INTO producer_state VALUES (1, 100, 1000, NULL), (2, 100, 5000, NULL),"
                    + " (1, 200, 3000, NULL), (3, 300, NULL, NULL), (4, 400, 1000, 17)");
        }
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    @Test
    void forgetsEachProducerOnEachPartitionByItsOwnLastWrite() throws SQLException {
        assertThat(ProducerExpiry.expire(connection, Instant.ofEpochMilli(3000), Instant.ofEpochMilli(9000)))
                .isEqualTo(1);
        assertThat(rows()).containsExactly("1/200@3000", "2/100@5000", "3/300@9000", "4/400@1000");

        assertThat(ProducerExpiry.expire(connection, Instant.ofEpochMilli(9000), Instant.ofEpochMilli(12000)))
                .isEqualTo(2);
        assertThat(rows()).containsExactly("3/300@9000", "4/400@1000");
    }

    @Test
    void aProducerWithATransactionOpenOnThePartitionIsKeptHowEverOld() throws SQLException {
        ProducerExpiry.expire(connection, Instant.ofEpochMilli(1_000_000), Instant.ofEpochMilli(9000));

        assertThat(rows()).contains("4/400@1000");
    }

    @Test
    void aRowWithoutATimeIsStampedFirstAndForgottenOnlyOneExpirationLater() throws SQLException {
        assertThat(ProducerExpiry.expire(connection, Instant.ofEpochMilli(10_000), Instant.ofEpochMilli(10_000)))
                .isEqualTo(3);
        assertThat(rows()).containsExactly("3/300@10000", "4/400@1000");
    }

    private List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(
                        "SELECT partition_id, producer_id, written_at FROM producer_state ORDER BY partition_id, producer_id")) {
            while (result.next()) {
                rows.add(result.getLong(1) + "/" + result.getLong(2) + "@" + result.getLong(3));
            }
        }
        return rows;
    }
}
