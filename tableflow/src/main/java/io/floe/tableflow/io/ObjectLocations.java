package io.floe.tableflow.io;

import io.floe.core.object.ObjectKey;
import java.util.Objects;

/**
 * Maps Iceberg file locations to keys of Floe's object store and back. The object store is named by
 * a root location (its URL: {@code file:/var/floe/objects} or {@code s3://bucket/prefix}), and a key
 * is the path below it, so the locations Iceberg writes into table metadata are the object's real
 * URL: an external engine reading the table through its own S3 or local FileIO finds the files.
 */
public final class ObjectLocations {

    private final String root;

    /** {@code root}: the object store's URL, without a trailing slash. */
    public ObjectLocations(String root) {
        Objects.requireNonNull(root, "root");
        String normalized = normalize(root);
        while (normalized.endsWith("/")) {
            normalized = normalized.substring(0, normalized.length() - 1);
        }
        if (normalized.isEmpty() || !normalized.contains(":")) {
            throw new IllegalArgumentException("object store root '" + root + "' is not a URL");
        }
        this.root = normalized;
    }

    /** The root location; tables live below {@code root + "/tables"}. */
    public String root() {
        return root;
    }

    /** The location of {@code key}. */
    public String location(ObjectKey key) {
        return root + "/" + key.value();
    }

    /** The key of {@code location}; {@link IllegalArgumentException} when it lies outside the root. */
    public ObjectKey key(String location) {
        String normalized = normalize(location);
        if (!normalized.startsWith(root + "/") || normalized.length() == root.length() + 1) {
            throw new IllegalArgumentException("location '" + location + "' is not in the object store " + root);
        }
        return new ObjectKey(normalized.substring(root.length() + 1));
    }

    /** The key prefix of every location below {@code location} (a directory-like location). */
    public String keyPrefix(String location) {
        String normalized = normalize(location);
        if (normalized.equals(root)) {
            return "";
        }
        String prefix = key(normalized.endsWith("/") ? normalized.substring(0, normalized.length() - 1) : normalized)
                .value();
        return prefix + "/";
    }

    /** {@code file:///x} and {@code file://localhost/x} are {@code file:/x}. */
    private static String normalize(String location) {
        if (location.startsWith("file:///")) {
            return "file:/" + location.substring("file:///".length());
        }
        if (location.startsWith("file://localhost/")) {
            return "file:/" + location.substring("file://localhost/".length());
        }
        return location;
    }

    @Override
    public String toString() {
        return root;
    }
}
