package io.floe.tableflow.rows;

/** A record value that does not fit the table's declared schema; the record becomes a dead letter. */
public final class RowException extends Exception {

    private static final long serialVersionUID = 1L;

    public RowException(String reason) {
        super(reason, null, false, false);
    }

    public RowException(String reason, Throwable cause) {
        super(reason + ": " + cause.getMessage(), cause, false, false);
    }
}
