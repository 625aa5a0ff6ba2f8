package io.floe.cli.agent;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of a running agent in the order they started, so they stop in reverse: the Kafka
 * listener first, the stores after the agent has flushed into them, metrics last. Not thread-safe;
 * {@link AgentRuntime} starts and stops it from one thread at a time.
 */
final class Stages {

    private static final Logger LOGGER = LoggerFactory.getLogger(Stages.class);

    /** Starts one part; may throw anything, which becomes an {@link AgentStartException}. */
    @FunctionalInterface
    interface Starter<T> {
        T start() throws Exception;
    }

    /** Stops one part. */
    @FunctionalInterface
    interface Stopper<T> {
        void stop(T part) throws Exception;
    }

    @FunctionalInterface
    private interface Stop {
        void run() throws Exception;
    }

    private record Stage(String name, Stop stop) {}

    private final Deque<Stage> started = new ArrayDeque<>();

    /**
     * Starts a part and remembers how to stop it. When it fails, stops the parts started before it
     * and throws an {@link AgentStartException} naming {@code name}.
     */
    <T> T start(String name, Starter<T> starter, Stopper<? super T> stopper) {
        T part;
        try {
            part = starter.start();
        } catch (Exception e) {
            LOGGER.debug("Cannot start {}", name, e);
            stopAll();
            throw new AgentStartException("cannot start " + name + ": " + reason(e), e);
        }
        started.push(new Stage(name, () -> stopper.stop(part)));
        return part;
    }

    /** Stops every started part, newest first, even when some fail; false when any of them failed. */
    boolean stopAll() {
        boolean clean = true;
        while (!started.isEmpty()) {
            Stage stage = started.pop();
            LOGGER.info("Stopping {}", stage.name());
            try {
                stage.stop().run();
                LOGGER.info("Stopped {}", stage.name());
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                clean = false;
                LOGGER.error("Failed to stop {}: {}", stage.name(), reason(e), e);
            }
        }
        return clean;
    }

    /** A one-line reason: the exception's message followed by those of its causes that add something. */
    static String reason(Throwable e) {
        String reason = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            if (cause.getMessage() != null && !reason.contains(cause.getMessage())) {
                reason = reason + ": " + cause.getMessage();
            }
        }
        return reason.replace('\n', ' ');
    }
}
