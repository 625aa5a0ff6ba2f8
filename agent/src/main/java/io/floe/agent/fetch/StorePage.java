package io.floe.agent.fetch;

import io.floe.core.log.BatchCoordinate;
import java.util.List;

/**
 * Batch coordinates below a partition's in-memory index, as one query to the metadata store returned
 * them: whether they answer a fetch, or the store must be asked for more rows.
 *
 * @param batches consecutive batches in offset order, as the store returned them: all its batches
 *     with {@code lastOffset} at or past the offset the query asked from, up to a row limit
 * @param reachesEnd whether the store had no more batches after these (fewer rows than the limit)
 */
record StorePage(List<BatchCoordinate> batches, boolean reachesEnd) {

    StorePage {
        batches = List.copyOf(batches);
    }

    /**
     * The page's batches with {@code lastOffset >= fromOffset}, up to about {@code bytesMax} bytes (at
     * least one batch), or null when the page ends before {@code bytesMax} bytes while the store may
     * hold more. A first batch starting after {@code fromOffset} is a gap in the store (key
     * compaction, retention).
     */
    List<BatchCoordinate> answer(long fromOffset, long bytesMax) {
        int first = firstEndingAtOrAfter(fromOffset);
        long bytes = 0;
        for (int i = first; i < batches.size(); i++) {
            long length = batches.get(i).range().length();
            if (i > first && bytes + length > bytesMax) {
                return batches.subList(first, i);
            }
            bytes += length;
        }
        return reachesEnd ? batches.subList(first, batches.size()) : null;
    }

    /** Average stored bytes of one batch of the page (1 when empty). */
    long averageBatchBytes() {
        if (batches.isEmpty()) {
            return 1;
        }
        long bytes = 0;
        for (BatchCoordinate batch : batches) {
            bytes += batch.range().length();
        }
        return Math.max(1, bytes / batches.size());
    }

    /** Index of the first batch with {@code lastOffset >= offset} (the size when none); batches are in offset order. */
    private int firstEndingAtOrAfter(long offset) {
        int low = 0;
        int high = batches.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (batches.get(middle).lastOffset() < offset) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}
