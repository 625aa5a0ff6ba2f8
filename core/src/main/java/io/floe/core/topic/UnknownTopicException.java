package io.floe.core.topic;

/** No topic of that name (or id) exists. */
public final class UnknownTopicException extends RuntimeException {

    public UnknownTopicException(String name) {
        super("topic '" + name + "' does not exist");
    }
}
