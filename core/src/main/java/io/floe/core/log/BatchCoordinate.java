package io.floe.core.log;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;

/**
 * Where one committed record batch lives: its offsets in the partition's log and its byte range in
 * an object. The batch bytes in the object are exactly what the producer sent; {@code baseOffset} is
 * patched in when the batch is served.
 */
public record BatchCoordinate(
        TopicPartition topicPartition,
        long baseOffset,
        long lastOffset,
        ObjectKey object,
        ByteRange range,
        long maxTimestamp)
        implements LogEntry {

    public BatchCoordinate {
        if (lastOffset < baseOffset) {
            throw new IllegalArgumentException("lastOffset " + lastOffset + " < baseOffset " + baseOffset);
        }
    }

    /**
     * The offsets the batch spans: its record count as produced. Key compaction may leave fewer
     * records in it (a compacted batch keeps its first and last offset, with gaps between).
     */
    public int recordCount() {
        return (int) (lastOffset - baseOffset + 1);
    }

    @Override
    public int sizeInBytes() {
        return range.length();
    }
}
