package io.floe.core.config;

/** A config name or value that Floe does not accept; the message says which and why. */
public final class InvalidConfigException extends RuntimeException {

    public InvalidConfigException(String message) {
        super(message);
    }
}
