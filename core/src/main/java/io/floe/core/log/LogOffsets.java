package io.floe.core.log;

/**
 * The two markers of a partition's log: the first offset still readable and the offset the next
 * appended record will get. {@code logStartOffset <= highWatermark}, and neither ever decreases.
 */
public record LogOffsets(long logStartOffset, long highWatermark) {

    public static final LogOffsets EMPTY = new LogOffsets(0, 0);

    public LogOffsets {
        if (logStartOffset < 0 || logStartOffset > highWatermark) {
            throw new IllegalArgumentException(
                    "need 0 <= logStartOffset <= highWatermark, got " + logStartOffset + " and " + highWatermark);
        }
    }

    public boolean contains(long offset) {
        return offset >= logStartOffset && offset <= highWatermark;
    }
}
