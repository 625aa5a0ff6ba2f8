package io.floe.core.segment;

import java.util.List;
import java.util.Objects;

/** The decoded footer of a segment: its format version and its batches in the order they were written. */
public record SegmentFooter(int version, List<SegmentBatch> batches) {

    public SegmentFooter {
        batches = List.copyOf(Objects.requireNonNull(batches, "batches"));
    }
}
