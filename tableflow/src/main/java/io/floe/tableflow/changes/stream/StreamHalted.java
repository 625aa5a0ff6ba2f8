package io.floe.tableflow.changes.stream;

/**
 * A range or a progress a stream needs that cannot be had: the stream stops (one ERROR line, the halted
 * gauge at 1) until an operator moves it; the message says how.
 */
final class StreamHalted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StreamHalted(String message) {
        super(message);
    }
}
