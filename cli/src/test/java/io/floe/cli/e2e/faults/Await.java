package io.floe.cli.e2e.faults;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Waiting for a condition with a deadline; an exception from the condition counts as "not yet". */
public final class Await {

    private static final long POLL_INTERVAL_MS = 200;

    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    private Await() {}

    /** Waits until {@code condition} holds; an {@link AssertionError} naming {@code what} after {@code timeout}. */
    public static void until(String what, Duration timeout, Condition condition) throws InterruptedException {
        Exception last = poll(timeout, condition);
        if (last != null) {
            throw new AssertionError(
                    "timed out after " + timeout + " waiting until " + what
                            + (last instanceof NotYet ? "" : "; last error: " + last),
                    last);
        }
    }

    /** Waits until {@code condition} holds or {@code timeout} passed; returns whether it holds. */
    public static boolean within(Duration timeout, Condition condition) throws InterruptedException {
        return poll(timeout, condition) == null;
    }

    /** Null once the condition held, otherwise the last error (or {@link NotYet}) at the deadline. */
    private static Exception poll(Duration timeout, Condition condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Exception last;
            try {
                if (condition.holds()) {
                    return null;
                }
                last = new NotYet();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception notYet) {
                last = notYet;
            }
            if (System.nanoTime() - deadline > 0) {
                return last;
            }
            TimeUnit.MILLISECONDS.sleep(POLL_INTERVAL_MS); // a poll interval: the condition decides, not the time
        }
    }

    /** The condition did not hold, without an error. */
    private static final class NotYet extends Exception {
        private static final long serialVersionUID = 1L;

        NotYet() {
            super("the condition did not hold", null, false, false);
        }
    }
}
