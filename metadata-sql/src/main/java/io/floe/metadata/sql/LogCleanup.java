package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ObjectDeletion;
import io.floe.core.metadata.ReferenceMismatch;
import io.floe.core.metadata.StorageStats;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.UnknownTopicException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Retention's truncation of a log's head, the orphan sweep's fence, and the deletion schedule that
 * both feed. An object is deleted from the object store only after its row moved to
 * {@code object_deletions} in a committed transaction, never on age alone.
 */
final class LogCleanup {

    private static final int IN_LIST_MAX = 200;

    private final Dialect dialect;

    LogCleanup(Dialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Moves the log start up to {@code newLogStart}, but never above the partition's lowest retention
     * hold, never down and never past the next offset; removes the rows wholly below it.
     */
    long truncate(Connection connection, TopicPartition tp, long newLogStart, Instant deleteAfter) throws SQLException {
        long id;
        long logStart;
        long nextOffset;
        // Locks the partition's row only: a join would lock the topic's row as well, after the partition's,
        // the reverse of the order a topic deletion takes them in.
        try (PreparedStatement select = connection.prepareStatement("SELECT id, log_start_offset, next_offset"
                + " FROM partitions WHERE topic_id = (SELECT id FROM topics WHERE name = ?) AND partition_index = ?"
                + dialect.forUpdate())) {
            select.setString(1, tp.topic());
            select.setInt(2, tp.partition());
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new UnknownTopicException(tp.toString());
                }
                id = row.getLong(1);
                logStart = row.getLong(2);
                nextOffset = row.getLong(3);
            }
        }
        // The lowest hold is read here, under the partition's lock, which hold writers take too: a hold
        // written after the caller planned (a table's first round) still caps this truncation, and a
        // hold written after it commits sees its log start.
        long capped = Math.min(newLogStart, RetentionHolds.lowest(connection, id));
        long target = Math.min(Math.max(capped, logStart), nextOffset);
        if (target > logStart) {
            try (PreparedStatement update =
                    connection.prepareStatement("UPDATE partitions SET log_start_offset = ? WHERE id = ?")) {
                update.setLong(1, target);
                update.setLong(2, id);
                update.executeUpdate();
            }
        }
        // The references released are counted from the rows the DELETE itself removed: a SELECT first
        // would count rows that a compaction swap committing in between (READ COMMITTED) moves to its
        // output, releasing the input twice and leaking the output (found by the model: spec/README.md).
        Map<ObjectKey, Integer> released = new LinkedHashMap<>();
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM batches"
                + " WHERE partition_id = ? AND base_offset < ? AND last_offset < ? RETURNING object_key")) {
            delete.setLong(1, id);
            delete.setLong(2, target);
            delete.setLong(3, target);
            try (ResultSet rows = delete.executeQuery()) {
                while (rows.next()) {
                    released.merge(new ObjectKey(rows.getString(1)), 1, Integer::sum);
                }
            }
        }
        if (!released.isEmpty()) {
            ObjectReferences.release(connection, released, deleteAfter, ObjectDeletion.Reason.UNREFERENCED);
        }
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM txn_markers WHERE partition_id = ? AND marker_offset < ?")) {
            delete.setLong(1, id);
            delete.setLong(2, target);
            delete.executeUpdate();
        }
        if (target > logStart) {
            Counters.increment(connection, Counters.LOG_REWRITES);
        }
        return target;
    }

    int scheduleUnreferenced(Connection connection, Instant registeredBefore, Instant now, Instant deleteAfter)
            throws SQLException {
        List<ObjectKey> orphans = keys(
                connection,
                "SELECT object_key FROM objects WHERE state = ?" + " AND registered_at < ?",
                CommitTransaction.REGISTERED,
                registeredBefore.toEpochMilli());
        List<ObjectKey> unreferenced = keys(
                connection,
                "SELECT object_key FROM objects WHERE state = ?" + " AND ref_count = ?",
                CommitTransaction.COMMITTED,
                0);
        // Nothing was ever read from an orphan, so it may go at once; an unreferenced object may still be
        // read by fetches planned before its last batch row went. Each row leaves `objects` only if it is
        // still what the SELECT saw: a commit landing in between (READ COMMITTED) keeps its object.
        List<ObjectKey> expired = ObjectReferences.scheduleIf(
                connection,
                orphans,
                "state = '" + CommitTransaction.REGISTERED + "'",
                now,
                ObjectDeletion.Reason.ORPHAN);
        List<ObjectKey> released = ObjectReferences.scheduleIf(
                connection,
                unreferenced,
                "state = '" + CommitTransaction.COMMITTED + "' AND ref_count = 0",
                deleteAfter,
                ObjectDeletion.Reason.UNREFERENCED);
        return expired.size() + released.size();
    }

    List<ObjectDeletion> dueDeletions(Connection connection, Instant now, int max) throws SQLException {
        List<ObjectDeletion> due = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT object_key, delete_after, reason"
                + " FROM object_deletions WHERE delete_after <= ? ORDER BY delete_after, object_key LIMIT ?")) {
            select.setLong(1, now.toEpochMilli());
            select.setInt(2, max);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    due.add(new ObjectDeletion(
                            new ObjectKey(rows.getString(1)),
                            Instant.ofEpochMilli(rows.getLong(2)),
                            ObjectDeletion.Reason.valueOf(rows.getString(3))));
                }
            }
        }
        return due;
    }

    void forgetDeletions(Connection connection, Collection<ObjectKey> deleted) throws SQLException {
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM object_deletions WHERE object_key = ?")) {
            for (ObjectKey key : deleted) {
                delete.setString(1, key.value());
                delete.addBatch();
            }
            delete.executeBatch();
        }
    }

    Set<ObjectKey> unknownObjects(Connection connection, Collection<ObjectKey> keys) throws SQLException {
        List<ObjectKey> all = List.copyOf(new LinkedHashSet<>(keys));
        Set<String> known = new HashSet<>();
        for (int from = 0; from < all.size(); from += IN_LIST_MAX) {
            List<ObjectKey> chunk = all.subList(from, Math.min(all.size(), from + IN_LIST_MAX));
            String in = ObjectRewrites.placeholders(chunk.size());
            try (PreparedStatement select = connection.prepareStatement("SELECT object_key FROM objects WHERE"
                    + " object_key IN (" + in + ") UNION SELECT object_key FROM object_deletions WHERE object_key IN ("
                    + in + ")")) {
                for (int i = 0; i < chunk.size(); i++) {
                    select.setString(i + 1, chunk.get(i).value());
                    select.setString(chunk.size() + i + 1, chunk.get(i).value());
                }
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        known.add(rows.getString(1));
                    }
                }
            }
        }
        Set<ObjectKey> unknown = new LinkedHashSet<>();
        for (ObjectKey key : all) {
            if (!known.contains(key.value())) {
                unknown.add(key);
            }
        }
        return unknown;
    }

    StorageStats stats(Connection connection) throws SQLException {
        long committed;
        long committedBytes;
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT COUNT(*), COALESCE(SUM(size_bytes), 0) FROM objects WHERE state = ?")) {
            select.setString(1, CommitTransaction.COMMITTED);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                committed = row.getLong(1);
                committedBytes = row.getLong(2);
            }
        }
        long registered =
                count(connection, "SELECT COUNT(*) FROM objects WHERE state = '" + CommitTransaction.REGISTERED + "'");
        long deletions = count(connection, "SELECT COUNT(*) FROM object_deletions");
        return new StorageStats(committed, committedBytes, registered, deletions);
    }

    /**
     * Objects whose count is not their number of batch rows, and keys rows point at without an object
     * row. One statement, so PostgreSQL answers it from one snapshot even at READ COMMITTED.
     */
    List<ReferenceMismatch> referenceMismatches(Connection connection) throws SQLException {
        List<ReferenceMismatch> found = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT o.object_key, o.state, o.ref_count,"
                        + " COUNT(b.object_key) FROM objects o LEFT JOIN batches b ON b.object_key = o.object_key"
                        + " GROUP BY o.object_key, o.state, o.ref_count HAVING o.ref_count <> COUNT(b.object_key)"
                        + " UNION ALL SELECT b.object_key, '" + ReferenceMismatch.MISSING
                        + "', 0, COUNT(*) FROM batches b"
                        + " WHERE NOT EXISTS (SELECT 1 FROM objects o WHERE o.object_key = b.object_key)"
                        + " GROUP BY b.object_key");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                found.add(new ReferenceMismatch(
                        new ObjectKey(rows.getString(1)), rows.getString(2), rows.getLong(3), rows.getLong(4)));
            }
        }
        found.sort(Comparator.comparing(mismatch -> mismatch.object().value()));
        return found;
    }

    private static List<ObjectKey> keys(Connection connection, String sql, String state, long value)
            throws SQLException {
        List<ObjectKey> keys = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, state);
            select.setLong(2, value);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    keys.add(new ObjectKey(rows.getString(1)));
                }
            }
        }
        return keys;
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql);
                ResultSet row = select.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }
}
