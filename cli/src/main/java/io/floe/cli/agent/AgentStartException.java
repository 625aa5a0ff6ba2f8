package io.floe.cli.agent;

/** The agent could not start; the message says which part failed and why, in one line. */
public final class AgentStartException extends RuntimeException {

    public AgentStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
