package io.floe.core.log;

/**
 * The markers of a partition's log: the first offset still readable, the last stable offset (the
 * first offset of the oldest transaction still open, else the high watermark: read-committed readers
 * read below it) and the offset the next appended record will get.
 * {@code logStartOffset <= lastStableOffset <= highWatermark}, and none ever decreases.
 */
public record LogOffsets(long logStartOffset, long lastStableOffset, long highWatermark) {

    public static final LogOffsets EMPTY = new LogOffsets(0, 0);

    public LogOffsets {
        if (logStartOffset < 0 || logStartOffset > lastStableOffset || lastStableOffset > highWatermark) {
            throw new IllegalArgumentException("need 0 <= logStartOffset <= lastStableOffset <= highWatermark, got "
                    + logStartOffset + ", " + lastStableOffset + " and " + highWatermark);
        }
    }

    /** Offsets of a log with no open transaction. */
    public LogOffsets(long logStartOffset, long highWatermark) {
        this(logStartOffset, highWatermark, highWatermark);
    }

    /** Whether a transaction is open in the log. */
    public boolean unstable() {
        return lastStableOffset < highWatermark;
    }

    public boolean contains(long offset) {
        return offset >= logStartOffset && offset <= highWatermark;
    }
}
