package io.floe.core.record;

import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Buffers a reader reuses to decompress one batch after another, so a long pass over a log does not
 * allocate them per batch. Not thread-safe: one per reader.
 */
public final class DecompressionBuffers {

    private final BufferSupplier supplier;

    private DecompressionBuffers(BufferSupplier supplier) {
        this.supplier = supplier;
    }

    /** Fresh buffers, kept for reuse by whoever holds them. */
    public static DecompressionBuffers reused() {
        return new DecompressionBuffers(BufferSupplier.create());
    }

    BufferSupplier supplier() {
        return supplier;
    }
}
