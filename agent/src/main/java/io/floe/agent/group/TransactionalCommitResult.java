package io.floe.agent.group;

import io.floe.core.transaction.TransactionOutcome;
import java.util.Objects;

/**
 * The outcome of a TxnOffsetCommit at the group's coordinator: refused by the group ({@code error}:
 * the member check, or the coordinator lease), or passed to the transaction, whose {@code outcome}
 * it is (null when refused).
 */
public record TransactionalCommitResult(GroupError error, TransactionOutcome outcome) {

    public TransactionalCommitResult {
        Objects.requireNonNull(error, "error");
        if ((error == GroupError.NONE) != (outcome != null)) {
            throw new IllegalArgumentException(
                    "an outcome exactly when the group passed, got " + error + "/" + outcome);
        }
    }

    static TransactionalCommitResult refused(GroupError error) {
        return new TransactionalCommitResult(error, null);
    }

    static TransactionalCommitResult passed(TransactionOutcome outcome) {
        return new TransactionalCommitResult(GroupError.NONE, outcome);
    }
}
