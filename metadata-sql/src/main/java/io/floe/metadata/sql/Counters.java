package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Named counters in the {@code counters} table, for ids that must never repeat, across restarts too. */
final class Counters {

    static final String PRODUCER_ID = "producer_id";
    static final String PARTITION_ID = "partition_id";
    /** See {@code MetadataStore#logRewrites}. */
    static final String LOG_REWRITES = "log_rewrites";
    /** The highest epoch of a group coordinator lease that was forgotten: a new lease starts above it. */
    static final String COORDINATOR_EPOCH_FLOOR = "coordinator_epoch_floor";
    /** The highest epoch of a job lease that was forgotten: a new lease starts above it. */
    static final String JOB_LEASE_EPOCH_FLOOR = "job_lease_epoch_floor";

    private Counters() {}

    /** Adds one to the counter. Take it last in a transaction: PostgreSQL holds its row lock until the commit. */
    static void increment(Connection connection, String name) throws SQLException {
        allocate(connection, name, 1);
    }

    /** The counter's value. */
    static long value(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT value FROM counters WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    throw new SQLException("counter " + name + " is missing from table counters");
                }
                return rows.getLong(1);
            }
        }
    }

    /** Raises the counter to {@code value} unless it is higher already. */
    static void raise(Connection connection, String name, long value) throws SQLException {
        try (PreparedStatement update =
                connection.prepareStatement("UPDATE counters SET value = ? WHERE name = ? AND value < ?")) {
            update.setLong(1, value);
            update.setString(2, name);
            update.setLong(3, value);
            update.executeUpdate();
        }
    }

    /** Reserves {@code count} consecutive values of the counter and returns the first. */
    static long allocate(Connection connection, String name, int count) throws SQLException {
        try (PreparedStatement update =
                connection.prepareStatement("UPDATE counters SET value = value + ? WHERE name = ?")) {
            update.setInt(1, count);
            update.setString(2, name);
            if (update.executeUpdate() != 1) {
                throw new SQLException("counter " + name + " is missing from table counters");
            }
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT value FROM counters WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1) - count;
            }
        }
    }
}
