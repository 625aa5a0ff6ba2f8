package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.OpenTransaction;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads and writes of {@code transactions} and {@code transaction_partitions} rows. */
final class TransactionRows {

    private static final String COLUMNS = "transactional_id, producer_id, producer_epoch, last_producer_epoch,"
            + " previous_producer_id, state, timeout_ms, started_at, updated_at";

    private final Dialect dialect;

    TransactionRows(Dialect dialect) {
        this.dialect = dialect;
    }

    /** The row of {@code transactionalId}, locked for the rest of the write transaction. */
    Optional<TransactionRow> lock(Connection connection, String transactionalId) throws SQLException {
        return find(connection, transactionalId, dialect.forUpdate());
    }

    Optional<TransactionRow> find(Connection connection, String transactionalId) throws SQLException {
        return find(connection, transactionalId, "");
    }

    private Optional<TransactionRow> find(Connection connection, String transactionalId, String suffix)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT " + COLUMNS + " FROM transactions WHERE transactional_id = ?" + suffix)) {
            select.setString(1, transactionalId);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(row(rows)) : Optional.empty();
            }
        }
    }

    /**
     * The rows owning {@code producerIds}, by producer id, locked in producer id order (the first
     * locks of a commit with transactional batches; see {@code Transactions}' lock order).
     */
    Map<Long, TransactionRow> lockByProducers(Connection connection, List<Long> producerIds) throws SQLException {
        Map<Long, TransactionRow> found = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT " + COLUMNS + " FROM transactions",
                List.of("producer_id"),
                dialect.forUpdateInOrder("producer_id"),
                producerIds.stream().sorted().toList(),
                (statement, index, id) -> statement.setLong(index, id),
                rows -> {
                    TransactionRow row = row(rows);
                    found.put(row.producerId(), row);
                });
        return found;
    }

    /** Every row, sorted by transactional id. */
    List<TransactionRow> all(Connection connection, String where, long... parameters) throws SQLException {
        List<TransactionRow> all = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT " + COLUMNS + " FROM transactions" + where + " ORDER BY transactional_id")) {
            for (int i = 0; i < parameters.length; i++) {
                select.setLong(i + 1, parameters[i]);
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    all.add(row(rows));
                }
            }
        }
        return all;
    }

    /**
     * The open transactions, sorted by transactional id (here rather than in SQL: databases order text
     * by their own collation). Reads the open rows alone, through {@code transactions_by_state}.
     */
    List<OpenTransaction> open(Connection connection) throws SQLException {
        List<OpenTransaction> open = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT transactional_id, producer_id,"
                + " producer_epoch, started_at, timeout_ms FROM transactions WHERE state = ?")) {
            select.setString(1, TransactionState.ONGOING.name());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    open.add(new OpenTransaction(
                            rows.getString(1),
                            new ProducerEpoch(rows.getLong(2), rows.getShort(3)),
                            rows.getLong(4),
                            rows.getInt(5)));
                }
            }
        }
        open.sort(Comparator.comparing(OpenTransaction::transactionalId));
        return open;
    }

    void insert(Connection connection, TransactionRow row) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO transactions (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            bind(insert, row);
            insert.executeUpdate();
        }
    }

    void update(Connection connection, TransactionRow row) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE transactions SET producer_id = ?,"
                + " producer_epoch = ?, last_producer_epoch = ?, previous_producer_id = ?, state = ?, timeout_ms = ?,"
                + " started_at = ?, updated_at = ? WHERE transactional_id = ?")) {
            update.setLong(1, row.producerId());
            update.setShort(2, row.epoch());
            update.setShort(3, row.lastEpoch());
            update.setLong(4, row.previousProducerId());
            update.setString(5, row.state().name());
            update.setInt(6, row.timeoutMs());
            update.setLong(7, row.startedAt());
            update.setLong(8, row.updatedAt());
            update.setString(9, row.transactionalId());
            if (update.executeUpdate() != 1) {
                throw new SQLException("transactional id " + row.transactionalId() + " vanished during its update");
            }
        }
    }

    /** The partition ids of the transactional id's open transaction. */
    Set<Long> partitionIds(Connection connection, String transactionalId) throws SQLException {
        Set<Long> ids = new HashSet<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT partition_id FROM transaction_partitions WHERE transactional_id = ?")) {
            select.setString(1, transactionalId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getLong(1));
                }
            }
        }
        return ids;
    }

    void addPartitions(Connection connection, String transactionalId, Collection<Long> partitionIds)
            throws SQLException {
        if (partitionIds.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO transaction_partitions"
                + " (transactional_id, partition_id) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
            for (long id : partitionIds) {
                insert.setString(1, transactionalId);
                insert.setLong(2, id);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    void clearPartitions(Connection connection, String transactionalId) throws SQLException {
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM transaction_partitions WHERE transactional_id = ?")) {
            delete.setString(1, transactionalId);
            delete.executeUpdate();
        }
    }

    /** The row as the role describes it: with its partitions' names and its groups with pending offsets. */
    TransactionDescription describe(Connection connection, TransactionRow row) throws SQLException {
        Set<TopicPartition> partitions = new HashSet<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT t.name, p.partition_index"
                + " FROM transaction_partitions x JOIN partitions p ON p.id = x.partition_id"
                + " JOIN topics t ON t.id = p.topic_id WHERE x.transactional_id = ?")) {
            select.setString(1, row.transactionalId());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    partitions.add(new TopicPartition(rows.getString(1), rows.getInt(2)));
                }
            }
        }
        Set<String> groups = new HashSet<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT DISTINCT group_id FROM pending_offsets WHERE transactional_id = ?")) {
            select.setString(1, row.transactionalId());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    groups.add(rows.getString(1));
                }
            }
        }
        return new TransactionDescription(
                row.transactionalId(),
                row.producer(),
                row.state(),
                row.timeoutMs(),
                row.startedAt(),
                row.updatedAt(),
                partitions,
                groups);
    }

    private static void bind(PreparedStatement statement, TransactionRow row) throws SQLException {
        statement.setString(1, row.transactionalId());
        statement.setLong(2, row.producerId());
        statement.setShort(3, row.epoch());
        statement.setShort(4, row.lastEpoch());
        statement.setLong(5, row.previousProducerId());
        statement.setString(6, row.state().name());
        statement.setInt(7, row.timeoutMs());
        statement.setLong(8, row.startedAt());
        statement.setLong(9, row.updatedAt());
    }

    private static TransactionRow row(ResultSet rows) throws SQLException {
        return new TransactionRow(
                rows.getString(1),
                rows.getLong(2),
                rows.getShort(3),
                rows.getShort(4),
                rows.getLong(5),
                TransactionState.valueOf(rows.getString(6)),
                rows.getInt(7),
                rows.getLong(8),
                rows.getLong(9));
    }
}
