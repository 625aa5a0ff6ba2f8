package io.floe.agent.fetch;

import io.floe.core.log.LogEntry;
import java.util.List;

/**
 * Log entries (batches and transaction markers) below a partition's in-memory index, as one query to
 * the metadata store returned them: whether they answer a fetch, or the store must be asked for more rows.
 *
 * @param entries consecutive entries in offset order, as the store returned them: all its entries
 *     with {@code lastOffset} at or past the offset the query asked from, up to a row limit
 * @param reachesEnd whether the store had no more entries after these (fewer rows than the limit)
 */
record StorePage(List<LogEntry> entries, boolean reachesEnd) {

    StorePage {
        entries = List.copyOf(entries);
    }

    /**
     * The page's entries with {@code lastOffset >= fromOffset}, up to about {@code bytesMax} bytes (at
     * least one entry), or null when the page ends before {@code bytesMax} bytes while the store may
     * hold more. A first entry starting after {@code fromOffset} is a gap in the store (key
     * compaction, retention).
     */
    List<LogEntry> answer(long fromOffset, long bytesMax) {
        int first = firstEndingAtOrAfter(fromOffset);
        long bytes = 0;
        for (int i = first; i < entries.size(); i++) {
            long length = entries.get(i).sizeInBytes();
            if (i > first && bytes + length > bytesMax) {
                return entries.subList(first, i);
            }
            bytes += length;
        }
        return reachesEnd ? entries.subList(first, entries.size()) : null;
    }

    /** Average stored bytes of one entry of the page (1 when empty). */
    long averageBatchBytes() {
        if (entries.isEmpty()) {
            return 1;
        }
        long bytes = 0;
        for (LogEntry entry : entries) {
            bytes += entry.sizeInBytes();
        }
        return Math.max(1, bytes / entries.size());
    }

    /** Index of the first entry with {@code lastOffset >= offset} (the size when none); entries are in offset order. */
    private int firstEndingAtOrAfter(long offset) {
        int low = 0;
        int high = entries.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (entries.get(middle).lastOffset() < offset) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}
