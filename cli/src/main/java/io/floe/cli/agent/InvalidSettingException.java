package io.floe.cli.agent;

/**
 * A setting of {@code floe agent} that cannot be used. The message is one line that names the
 * setting, the value and where the value came from; it is shown to the user as it is.
 */
public final class InvalidSettingException extends RuntimeException {

    public InvalidSettingException(String message) {
        super(message);
    }

    public InvalidSettingException(String message, Throwable cause) {
        super(message, cause);
    }
}
