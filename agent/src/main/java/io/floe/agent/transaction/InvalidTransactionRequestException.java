package io.floe.agent.transaction;

import java.util.Objects;

/** A transaction request the coordinator refuses before it reaches the store; nothing changed. */
public final class InvalidTransactionRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the request was refused. */
    public enum Reason {
        /** A required field is missing or empty (a transactional id, a group id). */
        INVALID_REQUEST,
        /** {@code transaction.timeout.ms} is not positive or exceeds {@code transaction.max.timeout.ms}. */
        INVALID_TRANSACTION_TIMEOUT
    }

    private final Reason reason;

    public InvalidTransactionRequestException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
