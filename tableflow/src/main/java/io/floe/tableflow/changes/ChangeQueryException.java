package io.floe.tableflow.changes;

/** A change query that cannot be answered, with a one-line message that says what is available. */
public final class ChangeQueryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why, which the HTTP endpoint turns into its status. */
    public enum Reason {
        /** The request is malformed or asks for a point the table does not have: 400. */
        INVALID(400),
        /** No such table (or topic, for an upsert table): 404. */
        NOT_FOUND(404),
        /** What the answer needs is gone: log retention, DeleteRecords or snapshot expiry: 410. */
        GONE(410),
        /** The answer would need more memory than the limits allow: 413. */
        TOO_LARGE(413);

        private final int status;

        Reason(int status) {
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    private final Reason reason;

    public ChangeQueryException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
