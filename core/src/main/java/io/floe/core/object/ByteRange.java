package io.floe.core.object;

/** A contiguous range of bytes in an object: {@code [position, position + length)}. */
public record ByteRange(long position, int length) {

    public ByteRange {
        if (position < 0 || length < 0) {
            throw new IllegalArgumentException("invalid byte range position=" + position + " length=" + length);
        }
    }

    public long end() {
        return position + length;
    }

    /** True when {@code other} starts at or before this range's end (the two can be read as one). */
    public boolean touchesOrOverlaps(ByteRange other) {
        return other.position <= end() && position <= other.end();
    }

    public ByteRange span(ByteRange other) {
        long start = Math.min(position, other.position);
        long stop = Math.max(end(), other.end());
        return new ByteRange(start, Math.toIntExact(stop - start));
    }
}
