package io.floe.tableflow.source;

/** A stored batch failed its CRC check: the table job stops at it rather than materialize damaged records. */
public final class CorruptBatchException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CorruptBatchException(String message) {
        super(message);
    }
}
