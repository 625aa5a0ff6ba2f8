package io.floe.kafka.group;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting for real clients over real sockets, where nothing can be driven step by step: checks a
 * condition every few milliseconds until it holds or the deadline passes.
 */
final class Eventually {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Eventually() {}

    static void await(String what, BooleanSupplier condition) {
        await(what, condition, () -> "");
    }

    static void await(String what, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "timed out after " + TIMEOUT + " waiting for " + what + "; state: " + state.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
