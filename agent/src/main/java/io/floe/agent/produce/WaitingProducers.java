package io.floe.agent.produce;

/**
 * Counts the connections that wait on the pipeline and those that may still send, from their
 * {@link ProducerWindow}s, so the pipeline can tell in constant time that waiting for the flush
 * interval would only delay every producer: group commit. Not thread-safe: the pipeline guards it
 * and the windows' counts with its lock.
 */
final class WaitingProducers {

    /** Connections with requests unanswered and fewer than their most: more may come. */
    private int mayStillSend;
    /** Connections with as many requests unanswered as they ever had: nothing more comes before an answer. */
    private int waiting;

    void buffered(ProducerWindow window) {
        if (window.closed) {
            return;
        }
        leave(window);
        window.unanswered++;
        window.mostUnanswered = Math.max(window.mostUnanswered, window.unanswered);
        enter(window);
    }

    void answered(ProducerWindow window) {
        if (window.closed || window.unanswered == 0) {
            return;
        }
        leave(window);
        window.unanswered--;
        enter(window);
    }

    void closed(ProducerWindow window) {
        if (window.closed) {
            return;
        }
        leave(window);
        window.closed = true;
    }

    /** True when some connection waits on the pipeline and none may still send. */
    boolean allWaiting() {
        return waiting > 0 && mayStillSend == 0;
    }

    private void leave(ProducerWindow window) {
        if (window.mayStillSend()) {
            mayStillSend--;
        } else if (window.waiting()) {
            waiting--;
        }
    }

    private void enter(ProducerWindow window) {
        if (window.mayStillSend()) {
            mayStillSend++;
        } else if (window.waiting()) {
            waiting++;
        }
    }
}
