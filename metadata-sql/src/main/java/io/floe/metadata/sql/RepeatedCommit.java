package io.floe.metadata.sql;

import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.object.ObjectKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A commit of an object that is already committed: the retry of a commit whose outcome was unknown
 * and that did apply. Nothing is appended again. The answer is {@code Committed}, batch by batch as
 * things stand: a batch the first commit appended is a {@code Duplicate} at its offset (found by its
 * partition and its position in the object); any other batch gets the verdict the producer rules
 * give now, or {@code NOT_COMMITTED}.
 *
 * <p>{@code Rejected} would be wrong here: it tells the caller the object may be deleted, and
 * committed batch rows point into it.
 */
final class RepeatedCommit {

    /** Where a batch row points into its object. */
    private record Placement(long partitionId, long position) {}

    private RepeatedCommit() {}

    static CommitOutcome resolve(Connection connection, Dialect dialect, ObjectCommit commit) throws SQLException {
        Map<Placement, Long> stored = storedBatches(connection, commit.object());
        CommitState state = CommitState.load(connection, dialect, commit.batches());
        List<AppendResult> results = new ArrayList<>(commit.batches().size());
        for (BatchAppend batch : commit.batches()) {
            results.add(resolve(commit.object(), batch, state, stored));
        }
        return new CommitOutcome.Committed(results);
    }

    private static AppendResult resolve(
            ObjectKey object, BatchAppend batch, CommitState state, Map<Placement, Long> stored) {
        String missing = state.missingTarget(batch);
        if (missing != null) {
            return new AppendResult.Failed(AppendError.UNKNOWN_TOPIC_OR_PARTITION, missing);
        }
        PartitionLog log = state.partition(batch.topicPartition());
        Long baseOffset = stored.get(new Placement(log.id(), batch.range().position()));
        if (baseOffset != null) {
            return new AppendResult.Duplicate(baseOffset, log.logStartOffset());
        }
        if (batch.producer().idempotent()) {
            SequenceCheck.Verdict verdict = SequenceCheck.check(
                    state.producer(log.id(), batch.producer().producerId()), batch);
            if (verdict instanceof SequenceCheck.Duplicate duplicate) {
                return new AppendResult.Duplicate(duplicate.baseOffset(), log.logStartOffset());
            }
            if (verdict instanceof SequenceCheck.Refuse refuse) {
                return new AppendResult.Failed(refuse.error(), refuse.message());
            }
        }
        return new AppendResult.Failed(
                AppendError.NOT_COMMITTED,
                "object " + object
                        + " was committed before, without the batch at position "
                        + batch.range().position() + " of "
                        + batch.topicPartition() + " (refused then, or removed from the log since)");
    }

    private static Map<Placement, Long> storedBatches(Connection connection, ObjectKey object) throws SQLException {
        Map<Placement, Long> stored = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT partition_id, byte_position, base_offset FROM batches WHERE object_key = ?")) {
            select.setString(1, object.value());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    stored.put(new Placement(rows.getLong(1), rows.getLong(2)), rows.getLong(3));
                }
            }
        }
        return stored;
    }
}
