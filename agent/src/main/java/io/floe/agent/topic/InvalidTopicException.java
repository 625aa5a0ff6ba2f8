package io.floe.agent.topic;

/** A topic name that Kafka's rules do not allow. */
public final class InvalidTopicException extends RuntimeException {

    public InvalidTopicException(String message) {
        super(message);
    }
}
