package io.floe.objectstore.s3;

import io.floe.core.object.ObjectKey;
import java.util.Objects;
import java.util.Optional;

/**
 * Maps store keys to bucket keys and back: the bucket key is the configured prefix and the object
 * key joined with exactly one '/', or the object key alone when there is no prefix. Pure.
 */
final class KeyPrefix {

    /** The prefix with its separator ({@code "a/b/"}), or empty for none. */
    private final String head;

    /** {@code prefix} is already normalized: no leading or trailing '/'. */
    KeyPrefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        this.head = prefix.isEmpty() ? "" : prefix + "/";
    }

    String toBucketKey(ObjectKey key) {
        Objects.requireNonNull(key, "key");
        return head + key.value();
    }

    /** The bucket-key prefix that lists the store keys starting with {@code keyPrefix}. */
    String toBucketPrefix(String keyPrefix) {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        return head + keyPrefix;
    }

    /**
     * The store key of a listed bucket key, or empty when the bucket key is outside the prefix or is
     * not a valid {@link ObjectKey} (written by something other than a store).
     */
    Optional<ObjectKey> toObjectKey(String bucketKey) {
        if (!bucketKey.startsWith(head) || bucketKey.length() == head.length()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new ObjectKey(bucketKey.substring(head.length())));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
