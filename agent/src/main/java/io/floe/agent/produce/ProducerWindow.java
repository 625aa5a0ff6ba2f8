package io.floe.agent.produce;

/**
 * One client connection's produce requests, as the pipeline counts them to seal a flush early when
 * every producer is waiting on it (see {@link ProducePipeline}). The connection tells it when a
 * request's last batch is buffered, when the request is answered, and when the connection closes.
 * Thread-safe: the counts are kept under the pipeline's lock.
 */
public final class ProducerWindow implements AutoCloseable {

    private final ProducePipeline pipeline;
    /** Requests buffered and not yet answered. Guarded by the pipeline's lock. */
    int unanswered;
    /**
     * The most requests this connection ever had unanswered at once: taken to be its client's in-flight
     * limit ({@code max.in.flight.requests.per.connection}). Guarded by the pipeline's lock.
     */
    int mostUnanswered;
    /** Guarded by the pipeline's lock. */
    boolean closed;

    ProducerWindow(ProducePipeline pipeline) {
        this.pipeline = pipeline;
    }

    /** Every batch of one more request of this connection is in the pipeline; it awaits one answer. */
    public void requestBuffered() {
        pipeline.onRequestBuffered(this);
    }

    /**
     * One of this connection's buffered requests has its outcome. Call before its answer is sent, so
     * that the client's next request cannot be counted before this one is taken off.
     */
    public void requestAnswered() {
        pipeline.onRequestAnswered(this);
    }

    /** The connection closed: it sends nothing more, and its outstanding answers no longer count. */
    @Override
    public void close() {
        pipeline.onWindowClosed(this);
    }

    /** True while the connection may still send produce requests before any is answered. */
    boolean mayStillSend() {
        return unanswered > 0 && unanswered < mostUnanswered;
    }

    /** True while the connection has requests unanswered and, by what it did before, can send no more. */
    boolean waiting() {
        return unanswered > 0 && unanswered >= mostUnanswered;
    }
}
