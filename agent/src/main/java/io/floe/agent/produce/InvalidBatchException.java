package io.floe.agent.produce;

/** A produced batch that Floe refuses before it reaches storage; {@link #reason()} maps to a Kafka error. */
public final class InvalidBatchException extends RuntimeException {

    /** Why the batch was refused. */
    public enum Reason {
        /** Bad CRC, truncated or unparsable bytes. */
        CORRUPT_MESSAGE,
        /** Larger than the topic's max.message.bytes. */
        MESSAGE_TOO_LARGE,
        /** Well-formed but not acceptable: old magic, not exactly one batch, inconsistent record count. */
        INVALID_RECORD
    }

    private final Reason reason;

    public InvalidBatchException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
