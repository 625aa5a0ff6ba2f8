package io.floe.core.metadata;

/** An offset outside what a partition's log allows for the operation (past the high watermark, or negative). */
public final class OffsetOutOfRangeException extends RuntimeException {

    public OffsetOutOfRangeException(String message) {
        super(message);
    }
}
