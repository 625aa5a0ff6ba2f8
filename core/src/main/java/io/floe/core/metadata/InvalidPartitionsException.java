package io.floe.core.metadata;

/** A partition count change that Kafka would refuse (fewer partitions than now, or none). */
public final class InvalidPartitionsException extends RuntimeException {

    public InvalidPartitionsException(String message) {
        super(message);
    }
}
