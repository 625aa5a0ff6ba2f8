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
 * Compaction's reads (small objects, the batch rows in them) and the swap that compaction and key
 * compaction share. The swap is a compare-and-swap on every batch row it moves or removes: the row
 * must still point at the object, position and length the plan read, or the whole transaction rolls
 * back. Rows are changed in (partition, offset) order, the order retention deletes them in, so
 * concurrent writers on PostgreSQL never deadlock.
 */
final class ObjectRewrites {

    private static final int IN_LIST_MAX = 200;

    /** A row as the plan read it; parameters: partition id, base and last offset, object, position, length. */
    private static final String ROW_AS_READ = " WHERE partition_id = ? AND base_offset = ? AND last_offset = ?"
            + " AND object_key = ? AND byte_position = ? AND byte_length = ?";

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
                    found.add(new StoredObject(
                            new ObjectKey(rows.getString(1)),
                            rows.getLong(2),
                            rows.getInt(3),
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
                        found.add(new BatchCoordinate(
                                new TopicPartition(rows.getString(1), rows.getInt(2)),
                                rows.getLong(3),
                                rows.getLong(4),
                                new ObjectKey(rows.getString(5)),
                                new ByteRange(rows.getLong(6), rows.getInt(7)),
                                rows.getLong(8)));
                    }
                }
            }
        }
        found.sort(Comparator.comparing((BatchCoordinate b) -> b.object().value())
                .thenComparingLong(b -> b.range().position()));
        return found;
    }

    /** One row the swap changes: moved to the output ({@code move} set) or removed. */
    private record RowChange(long partitionId, BatchCoordinate from, ObjectRewrite.Move move) {}

    /** Applies the swap or throws {@link Conflict} (the caller rolls back and answers Rejected). */
    RewriteOutcome.Rewritten rewrite(Connection connection, ObjectRewrite rewrite, Instant deleteAfter)
            throws SQLException {
        if (rewrite.output() != null) {
            requireRegistered(connection, rewrite.output());
        }
        List<RowChange> changes = rowChanges(connection, rewrite);
        Map<ObjectKey, Integer> released = new LinkedHashMap<>();
        try (PreparedStatement swap = connection.prepareStatement("UPDATE batches SET object_key = ?,"
                        + " byte_position = ?, byte_length = ?, max_timestamp = ?" + ROW_AS_READ);
                PreparedStatement remove = connection.prepareStatement("DELETE FROM batches" + ROW_AS_READ)) {
            for (RowChange change : changes) {
                int changed;
                if (change.move() != null) {
                    ObjectRewrite.Move move = change.move();
                    swap.setString(1, rewrite.output().value());
                    swap.setLong(2, move.to().position());
                    swap.setInt(3, move.to().length());
                    swap.setLong(4, move.maxTimestamp());
                    bindRowAsRead(swap, 5, change);
                    changed = swap.executeUpdate();
                } else {
                    bindRowAsRead(remove, 1, change);
                    changed = remove.executeUpdate();
                }
                if (changed != 1) {
                    BatchCoordinate from = change.from();
                    throw new Conflict("batch at offset " + from.baseOffset() + " of " + from.topicPartition()
                            + " no longer lies at " + from.range() + " of " + from.object());
                }
                released.merge(change.from().object(), 1, Integer::sum);
            }
        }
        if (rewrite.output() != null) {
            try (PreparedStatement commit = connection.prepareStatement("UPDATE objects SET state = ?,"
                    + " size_bytes = ?, ref_count = ? WHERE object_key = ? AND state = ?")) {
                commit.setString(1, CommitTransaction.COMMITTED);
                commit.setLong(2, rewrite.outputSizeBytes());
                commit.setInt(3, rewrite.moves().size());
                commit.setString(4, rewrite.output().value());
                commit.setString(5, CommitTransaction.REGISTERED);
                commit.executeUpdate();
            }
        }
        RewriteOutcome.Rewritten rewritten = new RewriteOutcome.Rewritten(
                ObjectReferences.release(connection, released, deleteAfter, ObjectDeletion.Reason.COMPACTED));
        Counters.increment(connection, Counters.LOG_REWRITES);
        return rewritten;
    }

    private static void bindRowAsRead(PreparedStatement statement, int first, RowChange change) throws SQLException {
        BatchCoordinate from = change.from();
        statement.setLong(first, change.partitionId());
        statement.setLong(first + 1, from.baseOffset());
        statement.setLong(first + 2, from.lastOffset());
        statement.setString(first + 3, from.object().value());
        statement.setLong(first + 4, from.range().position());
        statement.setInt(first + 5, from.range().length());
    }

    /**
     * The moved and removed rows in (partition id, offset) order, the order retention deletes rows in,
     * so concurrent writers on PostgreSQL never deadlock.
     */
    private static List<RowChange> rowChanges(Connection connection, ObjectRewrite rewrite) throws SQLException {
        Map<TopicPartition, Long> partitionIds = new HashMap<>();
        List<RowChange> changes =
                new ArrayList<>(rewrite.moves().size() + rewrite.removed().size());
        for (ObjectRewrite.Move move : rewrite.moves()) {
            changes.add(new RowChange(
                    partitionId(connection, partitionIds, move.from().topicPartition()), move.from(), move));
        }
        for (BatchCoordinate removed : rewrite.removed()) {
            changes.add(new RowChange(partitionId(connection, partitionIds, removed.topicPartition()), removed, null));
        }
        changes.sort(Comparator.comparingLong(RowChange::partitionId)
                .thenComparingLong(change -> change.from().baseOffset()));
        return changes;
    }

    private void requireRegistered(Connection connection, ObjectKey output) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT state FROM objects WHERE object_key = ?" + dialect.forUpdate())) {
            select.setString(1, output.value());
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new Conflict("output " + output + " is not registered (never, or swept as an orphan)");
                }
                if (!CommitTransaction.REGISTERED.equals(row.getString(1))) {
                    throw new Conflict(
                            "output " + output + " is " + row.getString(1) + ", not " + CommitTransaction.REGISTERED);
                }
            }
        }
    }

    private static long partitionId(Connection connection, Map<TopicPartition, Long> known, TopicPartition tp)
            throws SQLException {
        Long id = known.get(tp);
        if (id == null) {
            id = partitionId(connection, tp);
            known.put(tp, id);
        }
        return id;
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
