package io.floe.core.topic;

/** A topic of that name already exists. */
public final class TopicExistsException extends RuntimeException {

    public TopicExistsException(String name) {
        super("topic '" + name + "' already exists");
    }
}
