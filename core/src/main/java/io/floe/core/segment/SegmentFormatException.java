package io.floe.core.segment;

/** An object is not a well-formed segment: bad magic, unknown version, or a corrupt or truncated footer. */
public final class SegmentFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SegmentFormatException(String message) {
        super(message);
    }

    public SegmentFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
