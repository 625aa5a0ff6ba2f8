package io.floe.core.segment;

import static io.floe.core.segment.SegmentLayout.ENTRY_BYTES;
import static io.floe.core.segment.SegmentLayout.HEADER_BYTES;
import static io.floe.core.segment.SegmentLayout.MAGIC;
import static io.floe.core.segment.SegmentLayout.MAX_SEGMENT_BYTES;
import static io.floe.core.segment.SegmentLayout.TRAILER_BYTES;

import io.floe.core.object.ByteRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Builds one segment object from record batches, in append order (the caller groups them by
 * partition).
 *
 * <p>{@link #append} keeps a view of the caller's batch bytes and {@link #finish} copies each batch
 * once, into the finished object: the caller must not change the bytes in between. Not thread-safe;
 * one writer per flush.
 */
public final class SegmentWriter {

    /** Where the first batch of every segment starts: right after the header. */
    public static final long FIRST_BATCH_POSITION = HEADER_BYTES;

    private final List<SegmentBatch> batches = new ArrayList<>();
    private final List<ByteBuffer> contents = new ArrayList<>();
    private long batchAreaEnd = HEADER_BYTES;
    private boolean finished;

    public SegmentWriter() {}

    /**
     * Adds a batch (its bytes from position to limit; the caller's position is not moved) and
     * returns where it will lie in the finished object.
     *
     * @throws IllegalStateException after {@link #finish}
     * @throws IllegalArgumentException for an empty batch, or one that would make the object too big
     */
    public ByteRange append(
            UUID topicId,
            int partition,
            int recordCount,
            long producerId,
            short producerEpoch,
            int baseSequence,
            long maxTimestamp,
            ByteBuffer batch) {
        Objects.requireNonNull(batch, "batch");
        if (finished) {
            throw new IllegalStateException(
                    "segment already finished with " + batches.size() + " batches; start a new writer");
        }
        int length = batch.remaining();
        if (length == 0) {
            throw new IllegalArgumentException("empty batch for topic id " + topicId + " partition " + partition);
        }
        long sizeAfter = sizeBytes() + length + ENTRY_BYTES;
        if (sizeAfter > MAX_SEGMENT_BYTES) {
            throw new IllegalArgumentException("batch of " + length + " bytes for topic id " + topicId + " partition "
                    + partition + " would grow the segment to " + sizeAfter + " bytes, over the limit of "
                    + MAX_SEGMENT_BYTES);
        }
        ByteRange range = new ByteRange(batchAreaEnd, length);
        batches.add(new SegmentBatch(
                topicId, partition, range, recordCount, producerId, producerEpoch, baseSequence, maxTimestamp));
        contents.add(batch.duplicate());
        batchAreaEnd += length;
        return range;
    }

    public int batchCount() {
        return batches.size();
    }

    /** The size in bytes of the object {@link #finish} returns, given the batches appended so far. */
    public long sizeBytes() {
        return batchAreaEnd + SegmentLayout.footerBytes(batches.size()) + TRAILER_BYTES;
    }

    /** The footer entries so far, in append order. */
    public List<SegmentBatch> batches() {
        return List.copyOf(batches);
    }

    /**
     * Returns the whole object (header, batches, footer, trailer) in one heap buffer positioned at 0.
     * The writer takes no more batches afterwards.
     *
     * @throws IllegalStateException when called twice
     */
    public ByteBuffer finish() {
        return finishInto(ByteBuffer.allocate(Math.toIntExact(sizeBytes())));
    }

    /**
     * Like {@link #finish}, into {@code out} (cleared first; a reused or direct buffer with at least
     * {@link #sizeBytes()} capacity), which is returned flipped.
     *
     * @throws IllegalStateException when called twice
     * @throws IllegalArgumentException when {@code out} is too small
     */
    public ByteBuffer finishInto(ByteBuffer out) {
        if (finished) {
            throw new IllegalStateException("segment already finished with " + batches.size() + " batches");
        }
        if (out.capacity() < sizeBytes()) {
            throw new IllegalArgumentException(
                    "buffer of " + out.capacity() + " bytes is too small for a segment of " + sizeBytes());
        }
        finished = true;
        out.clear();
        out.put(MAGIC).put((byte) SegmentLayout.VERSION);
        for (ByteBuffer content : contents) {
            out.put(content);
        }
        contents.clear(); // the caller's buffers are no longer needed
        int footerStart = out.position();
        out.putInt(batches.size());
        for (SegmentBatch batch : batches) {
            SegmentLayout.writeEntry(out, batch);
        }
        int footerLength = out.position() - footerStart;
        out.putInt(footerLength)
                .putInt(SegmentLayout.crc32c(out, footerStart, footerLength))
                .put(MAGIC);
        return out.flip();
    }
}
