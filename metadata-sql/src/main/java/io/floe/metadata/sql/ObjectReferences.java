package io.floe.metadata.sql;

import io.floe.core.metadata.ObjectDeletion;
import io.floe.core.object.ObjectKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Reference counts of committed objects, and the hand-over of an object that lost its last
 * reference to the deletion schedule: its row leaves {@code objects} (so nothing can commit into it or
 * point at it again) and enters {@code object_deletions} in the same transaction.
 */
final class ObjectReferences {

    private ObjectReferences() {}

    /** Drops {@code released} references per object; returns the objects left with none, now scheduled. */
    static List<ObjectKey> release(
            Connection connection, Map<ObjectKey, Integer> released, Instant deleteAfter, ObjectDeletion.Reason reason)
            throws SQLException {
        List<ObjectKey> unreferenced = decrement(connection, released);
        schedule(connection, unreferenced, deleteAfter, reason);
        return unreferenced;
    }

    /**
     * Drops {@code released} references per object and returns the objects left with none, which stay
     * for the sweep. The rows are changed in key order, so two writers releasing the same objects
     * queue instead of deadlocking.
     */
    static List<ObjectKey> decrement(Connection connection, Map<ObjectKey, Integer> released) throws SQLException {
        List<Map.Entry<ObjectKey, Integer>> inOrder = new ArrayList<>(released.entrySet());
        inOrder.sort(Comparator.comparing(entry -> entry.getKey().value()));
        List<ObjectKey> unreferenced = new ArrayList<>();
        try (PreparedStatement decrement = connection.prepareStatement(
                        "UPDATE objects SET ref_count = ref_count - ? WHERE object_key = ?");
                PreparedStatement count =
                        connection.prepareStatement("SELECT ref_count FROM objects WHERE object_key = ?")) {
            for (Map.Entry<ObjectKey, Integer> entry : inOrder) {
                decrement.setInt(1, entry.getValue());
                decrement.setString(2, entry.getKey().value());
                decrement.executeUpdate();
                count.setString(1, entry.getKey().value());
                try (ResultSet row = count.executeQuery()) {
                    if (row.next() && row.getInt(1) == 0) {
                        unreferenced.add(entry.getKey());
                    }
                }
            }
        }
        return unreferenced;
    }

    /**
     * Moves to the deletion schedule those of {@code objects} whose row still satisfies {@code condition}
     * (an SQL predicate on {@code objects} made of constants only) when it is deleted; returns them.
     */
    static List<ObjectKey> scheduleIf(
            Connection connection,
            List<ObjectKey> objects,
            String condition,
            Instant deleteAfter,
            ObjectDeletion.Reason reason)
            throws SQLException {
        List<ObjectKey> scheduled = new ArrayList<>();
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM objects WHERE object_key = ? AND " + condition)) {
            for (ObjectKey object : objects) {
                delete.setString(1, object.value());
                if (delete.executeUpdate() == 1) {
                    scheduled.add(object);
                }
            }
        }
        insertDeletions(connection, scheduled, deleteAfter, reason);
        return scheduled;
    }

    /** Moves the objects' rows to the deletion schedule. */
    static void schedule(
            Connection connection, List<ObjectKey> objects, Instant deleteAfter, ObjectDeletion.Reason reason)
            throws SQLException {
        if (objects.isEmpty()) {
            return;
        }
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM objects WHERE object_key = ?")) {
            for (ObjectKey object : objects) {
                delete.setString(1, object.value());
                delete.addBatch();
            }
            delete.executeBatch();
        }
        insertDeletions(connection, objects, deleteAfter, reason);
    }

    private static void insertDeletions(
            Connection connection, List<ObjectKey> objects, Instant deleteAfter, ObjectDeletion.Reason reason)
            throws SQLException {
        if (objects.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO object_deletions (object_key, reason, delete_after) VALUES (?, ?, ?)")) {
            for (ObjectKey object : objects) {
                insert.setString(1, object.value());
                insert.setString(2, reason.name());
                insert.setLong(3, deleteAfter.toEpochMilli());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }
}
