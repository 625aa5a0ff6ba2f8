package io.floe.agent.produce;

import java.util.ArrayList;
import java.util.List;

/**
 * The batches that will go into one object: filled by connections while open, then sealed and
 * handed to the uploader. Not thread-safe: the pipeline guards it.
 */
final class Flush {

    private final long sequence;
    private final long openedAtNanos;
    private final List<PendingAppend> appends = new ArrayList<>();
    private long bytes;

    Flush(long sequence, long openedAtNanos) {
        this.sequence = sequence;
        this.openedAtNanos = openedAtNanos;
    }

    void add(PendingAppend append) {
        appends.add(append);
        bytes += append.sizeBytes();
    }

    long sequence() {
        return sequence;
    }

    long openedAtNanos() {
        return openedAtNanos;
    }

    List<PendingAppend> appends() {
        return appends;
    }

    long bytes() {
        return bytes;
    }

    boolean isEmpty() {
        return appends.isEmpty();
    }
}
