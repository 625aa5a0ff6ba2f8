package io.floe.kafka.codec;

/** An inclusive range of API versions. */
public record VersionRange(short min, short max) {

    public VersionRange {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("bad version range " + min + "-" + max);
        }
    }

    public boolean contains(short version) {
        return version >= min && version <= max;
    }

    @Override
    public String toString() {
        return min + "-" + max;
    }
}
