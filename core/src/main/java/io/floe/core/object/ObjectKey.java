package io.floe.core.object;

import java.util.Objects;

/**
 * The name of an immutable object in the object store, relative to the store's root (a directory or
 * a bucket prefix). Keys use '/' as separator and never start with one.
 */
public record ObjectKey(String value) implements Comparable<ObjectKey> {

    public ObjectKey {
        Objects.requireNonNull(value, "value");
        if (value.isEmpty() || value.startsWith("/") || value.contains("..") || value.contains("\\")) {
            throw new IllegalArgumentException("invalid object key '" + value + "'");
        }
    }

    @Override
    public int compareTo(ObjectKey other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
