package io.floe.cli.agent;

/**
 * A setting of {@code floe agent} that cannot be used. The message is one line that names the
 * setting, the value and where the value came from; it is shown to the user as it is.
 */
final class InvalidSettingException extends RuntimeException {

    InvalidSettingException(String message) {
        super(message);
    }

    InvalidSettingException(String message, Throwable cause) {
        super(message, cause);
    }
}
