package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Forgets idle producers' state, per producer and partition ({@code producer.id.expiration.ms}). A
 * commit of the producer locks its row and moves {@code written_at} forward: a delete waiting on that
 * lock re-checks the row as the commit left it (PostgreSQL) or runs before or after it (SQLite), so a
 * producer that writes meanwhile keeps its state.
 */
final class ProducerExpiry {

    private ProducerExpiry() {}

    static int expire(Connection connection, Instant writtenBefore, Instant now) throws SQLException {
        try (PreparedStatement stamp =
                connection.prepareStatement("UPDATE producer_state SET written_at = ? WHERE written_at IS NULL")) {
            stamp.setLong(1, now.toEpochMilli());
            stamp.executeUpdate();
        }
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM producer_state WHERE written_at < ? AND txn_first_offset IS NULL")) {
            delete.setLong(1, writtenBefore.toEpochMilli());
            return delete.executeUpdate();
        }
    }
}
