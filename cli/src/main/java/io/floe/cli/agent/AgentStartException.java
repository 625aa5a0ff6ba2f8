package io.floe.cli.agent;

/** The agent could not start; the message says which part failed and why, in one line. */
final class AgentStartException extends RuntimeException {

    AgentStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
