package io.floe.agent.group;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The timeouts of one group, by key (the join phase, the sync phase, each member's session or
 * revocation deadline), as Kafka's coordinator keys its timers: scheduling a key replaces its
 * previous timeout. A timeout runs under the group's lock and only if it is still the current one
 * for its key, so a task that fires while being cancelled or replaced does nothing. Guarded by the
 * group's lock.
 */
final class GroupTimeouts {

    static final String JOIN = "join";
    static final String SYNC = "sync";

    private final TimerService timers;
    /** Runs a task under the group's lock. */
    private final Consumer<Runnable> underLock;

    private final Map<String, Scheduled> scheduled = new HashMap<>();
    private long lastToken;

    GroupTimeouts(TimerService timers, Consumer<Runnable> underLock) {
        this.timers = timers;
        this.underLock = underLock;
    }

    static String session(String memberId) {
        return "session:" + memberId;
    }

    /** A consumer-protocol member's deadline to revoke partitions. */
    static String revocation(String memberId) {
        return "revocation:" + memberId;
    }

    void schedule(String key, long delayMs, Runnable action) {
        cancel(key);
        long token = ++lastToken;
        TimerService.Timeout timeout = timers.schedule(Math.max(0, delayMs), () -> fire(key, token, action));
        scheduled.put(key, new Scheduled(token, timeout));
    }

    void cancel(String key) {
        Scheduled removed = scheduled.remove(key);
        if (removed != null) {
            removed.timeout().cancel();
        }
    }

    void cancelAll() {
        scheduled.values().forEach(entry -> entry.timeout().cancel());
        scheduled.clear();
    }

    boolean isScheduled(String key) {
        return scheduled.containsKey(key);
    }

    private void fire(String key, long token, Runnable action) {
        underLock.accept(() -> {
            Scheduled current = scheduled.get(key);
            if (current != null && current.token() == token) {
                scheduled.remove(key);
                action.run();
            }
        });
    }

    private record Scheduled(long token, TimerService.Timeout timeout) {}
}
