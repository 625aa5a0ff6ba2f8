package io.floe.metadata.sql;

import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.metadata.ProducerState;
import io.floe.core.object.ObjectKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of {@code commit}, run inside one write transaction: consume the upload's registration,
 * check and append each batch in order, write back, mark the object committed.
 *
 * <p>The object's row is read {@code FOR UPDATE} first: two commits of one object (a retry racing
 * the original, from another agent even) queue on it, and the second finds the object
 * {@code COMMITTED} and appends nothing ({@link RepeatedCommit}).
 */
final class CommitTransaction {

    static final String REGISTERED = "REGISTERED";
    static final String COMMITTED = "COMMITTED";

    private final Dialect dialect;
    private final Clock clock;

    CommitTransaction(Dialect dialect, Clock clock) {
        this.dialect = dialect;
        this.clock = clock;
    }

    CommitOutcome apply(Connection connection, ObjectCommit commit) throws SQLException {
        String objectState = objectState(connection, commit.object());
        if (objectState == null) {
            return new CommitOutcome.Rejected("object " + commit.object()
                    + " has no upload registration: it was never registered, or swept as an orphan");
        }
        if (COMMITTED.equals(objectState)) {
            return RepeatedCommit.resolve(connection, dialect, commit);
        }
        if (!REGISTERED.equals(objectState)) {
            return new CommitOutcome.Rejected(
                    "object " + commit.object() + " is " + objectState + ", not " + REGISTERED);
        }
        CommitState state = CommitState.load(connection, dialect, commit.batches());
        long now = clock.millis();
        List<AppendResult> results = new ArrayList<>(commit.batches().size());
        List<BatchRow> appended = new ArrayList<>();
        for (BatchAppend batch : commit.batches()) {
            results.add(append(batch, state, appended, now));
        }
        CommitWrites.write(connection, dialect, commit.object(), appended, state, now);
        markCommitted(connection, commit, appended.size());
        return new CommitOutcome.Committed(results);
    }

    private static AppendResult append(BatchAppend batch, CommitState state, List<BatchRow> appended, long now) {
        String missing = state.missingTarget(batch);
        if (missing != null) {
            return new AppendResult.Failed(AppendError.UNKNOWN_TOPIC_OR_PARTITION, missing);
        }
        PartitionLog log = state.partition(batch.topicPartition());
        ProducerState producer = batch.producer();
        if (!producer.idempotent()) {
            return appendTo(log, batch, appended);
        }
        if (batch.transaction().transactional()) {
            AppendResult.Failed refused = state.transactions().check(batch, log.id());
            if (refused != null) {
                return refused;
            }
        }
        SequenceCheck.Verdict verdict = SequenceCheck.check(state.producer(log.id(), producer.producerId()), batch);
        if (verdict instanceof SequenceCheck.Duplicate duplicate) {
            return new AppendResult.Duplicate(duplicate.baseOffset(), log.logStartOffset());
        }
        if (verdict instanceof SequenceCheck.Refuse refuse) {
            return new AppendResult.Failed(refuse.error(), refuse.message());
        }
        AppendResult.Appended result = appendTo(log, batch, appended);
        ProducerHistory history = state.producerOrFresh(log.id(), producer.producerId(), producer.producerEpoch());
        history.record(
                producer.producerEpoch(),
                new RecentBatch(producer.baseSequence(), producer.lastSequence(), result.baseOffset()));
        if (batch.transaction().transactional()) {
            history.inTransaction(result.baseOffset());
            state.transactions().admitted(batch, log.id(), now);
        }
        return result;
    }

    private static AppendResult.Appended appendTo(PartitionLog log, BatchAppend batch, List<BatchRow> appended) {
        long baseOffset = log.append(batch.recordCount());
        appended.add(new BatchRow(log.id(), baseOffset, baseOffset + batch.recordCount() - 1, batch));
        return new AppendResult.Appended(baseOffset, log.logStartOffset());
    }

    private String objectState(Connection connection, ObjectKey object) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT state FROM objects WHERE object_key = ?" + dialect.forUpdate())) {
            select.setString(1, object.value());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** No batch row pointed at a registered object before, so its reference count is what this commit appended. */
    private static void markCommitted(Connection connection, ObjectCommit commit, int batchRows) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE objects SET state = ?, size_bytes = ?,"
                + " ref_count = ? WHERE object_key = ? AND state = ?")) {
            update.setString(1, COMMITTED);
            update.setLong(2, commit.objectSizeBytes());
            update.setInt(3, batchRows);
            update.setString(4, commit.object().value());
            update.setString(5, REGISTERED);
            if (update.executeUpdate() != 1) {
                throw new SQLException("object " + commit.object() + " changed state during its commit");
            }
        }
    }
}
