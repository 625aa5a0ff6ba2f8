package io.floe.agent.group;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Runs a task after a delay: the coordinator's only source of time-driven events. Tests drive a manual one. */
interface TimerService {

    /** Runs {@code task} once after {@code delayMs}; the returned handle cancels it if it has not run. */
    Timeout schedule(long delayMs, Runnable task);

    /** A scheduled task. */
    interface Timeout {
        void cancel();
    }

    /** Timers on {@code scheduler}; once it is shut down, new timers are dropped (the agent is stopping). */
    static TimerService on(ScheduledExecutorService scheduler) {
        return (delayMs, task) -> {
            try {
                ScheduledFuture<?> future = scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
                return () -> future.cancel(false);
            } catch (RejectedExecutionException stopping) {
                return () -> {};
            }
        };
    }
}
