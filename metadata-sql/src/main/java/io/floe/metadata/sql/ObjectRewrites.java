package io.floe.metadata.sql;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ObjectDeletion;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.metadata.StoredObject;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compaction's reads (small objects, the batch rows in them) and its swap. The swap is a
 * compare-and-swap on every batch row it moves: the row must still point at the object, position and
 * length the plan read, or the whole transaction rolls back. Rows are updated in (partition, offset)
 * order, the order retention deletes them in, so concurrent writers on PostgreSQL never deadlock.
 */
final class ObjectRewrites {

    private static final int IN_LIST_MAX = 200;

    private final Dialect dialect;

    ObjectRewrites(Dialect dialect) {
        this.dialect = dialect;
    }

    List<StoredObject> smallObjects(Connection connection, long sizeBelowBytes, Instant registeredBefore, int max)
            throws SQLException {
        List<StoredObject> found = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT object_key, size_bytes, ref_count,"
                + " registered_at FROM objects WHERE state = ? AND ref_count > 0 AND size_bytes < ?"
                + " AND registered_at < ? ORDER BY registered_at, object_key LIMIT ?")) {
            select.setString(1, CommitTransaction.COMMITTED);
            select.setLong(2, sizeBelowBytes);
            select.setLong(3, registeredBefore.toEpochMilli());
            select.setInt(4, max);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    found.add(new StoredObject(new ObjectKey(rows.getString(1)), rows.getLong(2), rows.getInt(3),
                            Instant.ofEpochMilli(rows.getLong(4))));
                }
            }
        }
        return found;
    }

    List<BatchCoordinate> batchesIn(Connection connection, Collection<ObjectKey> objects) throws SQLException {
        List<ObjectKey> keys = List.copyOf(objects);
        List<BatchCoordinate> found = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += IN_LIST_MAX) {
            List<ObjectKey> chunk = keys.subList(from, Math.min(keys.size(), from + IN_LIST_MAX));
            String sql = "SELECT t.name, p.partition_index, b.base_offset, b.last_offset, b.object_key,"
                    + " b.byte_position, b.byte_length, b.max_timestamp FROM batches b"
                    + " JOIN partitions p ON p.id = b.partition_id JOIN topics t ON t.id = p.topic_id"
                    + " WHERE b.object_key IN (" + placeholders(chunk.size()) + ")";
            try (PreparedStatement select = connection.prepareStatement(sql)) {
                for (int i = 0; i < chunk.size(); i++) {
                    select.setString(i + 1, chunk.get(i).value());
                }
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        found.add(new BatchCoordinate(new TopicPartition(rows.getString(1), rows.getInt(2)),
                                rows.getLong(3), rows.getLong(4), new ObjectKey(rows.getString(5)),
                                new ByteRange(rows.getLong(6), rows.getInt(7)), rows.getLong(8)));
                    }
                }
            }
        }
        found.sort(Comparator.comparing((BatchCoordinate b) -> b.object().value())
                .thenComparingLong(b -> b.range().position()));
        return found;
    }

    /** Applies the swap or throws {@link Conflict} (the caller rolls back and answers Rejected). */
    RewriteOutcome.Rewritten rewrite(Connection connection, ObjectRewrite rewrite, Instant deleteAfter)
            throws SQLException {
        requireRegistered(connection, rewrite.output());
        Map<TopicPartition, Long> partitionIds = new HashMap<>();
        List<ObjectRewrite.Move> moves = new ArrayList<>(rewrite.moves());
        for (ObjectRewrite.Move move : moves) {
            TopicPartition tp = move.from().topicPartition();
            if (!partitionIds.containsKey(tp)) {
                partitionIds.put(tp, partitionId(connection, tp));
            }
        }
        moves.sort(Comparator.comparingLong((ObjectRewrite.Move m) -> partitionIds.get(m.from().topicPartition()))
                .thenComparingLong(m -> m.from().baseOffset()));
        Map<ObjectKey, Integer> released = new LinkedHashMap<>();
        try (PreparedStatement swap = connection.prepareStatement("UPDATE batches SET object_key = ?, byte_position = ?"
                + " WHERE partition_id = ? AND base_offset = ? AND last_offset = ? AND object_key = ?"
                + " AND byte_position = ? AND byte_length = ?")) {
            for (ObjectRewrite.Move move : moves) {
                BatchCoordinate from = move.from();
                swap.setString(1, rewrite.output().value());
                swap.setLong(2, move.to().position());
                swap.setLong(3, partitionIds.get(from.topicPartition()));
                swap.setLong(4, from.baseOffset());
                swap.setLong(5, from.lastOffset());
                swap.setString(6, from.object().value());
                swap.setLong(7, from.range().position());
                swap.setInt(8, from.range().length());
                if (swap.executeUpdate() != 1) {
                    throw new Conflict("batch at offset " + from.baseOffset() + " of " + from.topicPartition()
                            + " no longer lies at " + from.range() + " of " + from.object());
                }
                released.merge(from.object(), 1, Integer::sum);
            }
        }
        try (PreparedStatement commit = connection.prepareStatement("UPDATE objects SET state = ?, size_bytes = ?,"
                + " ref_count = ? WHERE object_key = ? AND state = ?")) {
            commit.setString(1, CommitTransaction.COMMITTED);
            commit.setLong(2, rewrite.outputSizeBytes());
            commit.setInt(3, moves.size());
            commit.setString(4, rewrite.output().value());
            commit.setString(5, CommitTransaction.REGISTERED);
            commit.executeUpdate();
        }
        return new RewriteOutcome.Rewritten(
                ObjectReferences.release(connection, released, deleteAfter, ObjectDeletion.Reason.COMPACTED));
    }

    private void requireRegistered(Connection connection, ObjectKey output) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT state FROM objects WHERE object_key = ?" + dialect.forUpdate())) {
            select.setString(1, output.value());
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new Conflict("output " + output + " is not registered (never, or swept as an orphan)");
                }
                if (!CommitTransaction.REGISTERED.equals(row.getString(1))) {
                    throw new Conflict("output " + output + " is " + row.getString(1) + ", not " 
                            + CommitTransaction.REGISTERED);
                }
            }
        }
    }

    private static long partitionId(Connection connection, TopicPartition tp) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT p.id FROM partitions p"
                + " JOIN topics t ON t.id = p.topic_id WHERE t.name = ? AND p.partition_index = ?")) {
            select.setString(1, tp.topic());
            select.setInt(2, tp.partition());
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new Conflict(tp + " no longer exists");
                }
                return row.getLong(1);
            }
        }
    }

    static String placeholders(int count) {
        return String.join(", ", java.util.Collections.nCopies(count, "?"));
    }

    /** The plan no longer matches the rows: roll back, answer Rejected. */
    static final class Conflict extends RuntimeException {
        Conflict(String message) {
            super(message, null, false, false);
        }
    }
}
