package io.floe.simulation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Requests held back until another client's store read, then sent so that they apply between that
 * read and the reader's next store call: an interleaving a network may produce any time, but one that
 * a schedule drawn at random finds once in thousands of runs. The shared store's observer reports each
 * read of a group's committed offsets ({@link #committedOffsetsRead}); a request parked for that group
 * is handed to its agent at once, due before the reader's next call. A request whose read never comes
 * goes out at its deadline. Counted either way.
 */
final class Races {

    private record Parked(int id, Runnable send) {}

    private final Map<String, List<Parked>> parked = new HashMap<>();
    private int nextId;
    private int triggered;
    private int expired;

    /**
     * Holds {@code send} until the next read of {@code groupId}'s committed offsets, at most {@code
     * deadlineNanos} (then it runs on {@code client}). {@code send} must hand its request over at once.
     */
    void park(String groupId, Runnable send, SimExecutor client, long deadlineNanos) {
        Parked entry = new Parked(nextId++, send);
        parked.computeIfAbsent(groupId, id -> new ArrayList<>()).add(entry);
        client.schedule(
                () -> {
                    List<Parked> waiting = parked.get(groupId);
                    if (waiting != null && waiting.remove(entry)) {
                        expired++;
                        send.run();
                    }
                },
                deadlineNanos,
                TimeUnit.NANOSECONDS);
    }

    /** The shared store just answered a read of {@code groupId}'s committed offsets. */
    void committedOffsetsRead(String groupId) {
        List<Parked> waiting = parked.remove(groupId);
        if (waiting != null) {
            triggered += waiting.size();
            waiting.forEach(entry -> entry.send().run());
        }
    }

    int triggered() {
        return triggered;
    }

    int expired() {
        return expired;
    }
}
