package io.floe.tableflow.delta;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.UUID;

/**
 * Where a Delta deletion vector is stored, from its descriptor's {@code storageType} and
 * {@code pathOrInlineDv} (Delta's protocol, "Deletion Vector Descriptor Schema"): {@code p} names the
 * file by its path, as an {@code add} action names a data file (an Iceberg deletion-vector Puffin file,
 * whose blob Delta reads at the descriptor's offset); {@code u} by a UUID, Z85-encoded in the last 20
 * characters after an optional directory prefix, as {@code <table>/<prefix>/deletion_vector_<uuid>.bin};
 * {@code i} is inline in the log and has no file.
 */
final class DeletionVectorFiles {

    private static final String Z85 =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    private static final int UUID_CHARS = 20;

    private DeletionVectorFiles() {}

    /**
     * The path of the file that holds the deletion vector, relative to the table ({@code u}) or as its
     * descriptor gives it ({@code p}); empty for an inline one. Throws for a storage type it does not know.
     */
    static Optional<String> path(String storageType, String pathOrInlineDv) {
        return switch (storageType) {
            case "p" -> Optional.of(pathOrInlineDv);
            case "i" -> Optional.empty();
            case "u" -> Optional.of(relativePath(pathOrInlineDv));
            default ->
                throw new IllegalStateException("deletion vector storage type '" + storageType
                        + "' is not one of Delta's (u, i, p); its file cannot be found");
        };
    }

    /** Delta's unique id of a deletion vector: its storage type, path or inline bytes, and offset. */
    static String uniqueId(String storageType, String pathOrInlineDv, Integer offset) {
        return storageType + pathOrInlineDv + (offset == null ? "" : "@" + offset);
    }

    private static String relativePath(String encoded) {
        if (encoded.length() < UUID_CHARS) {
            throw new IllegalStateException("deletion vector id '" + encoded + "' is shorter than a Z85 UUID");
        }
        String prefix = encoded.substring(0, encoded.length() - UUID_CHARS);
        ByteBuffer bytes = z85(encoded.substring(encoded.length() - UUID_CHARS));
        UUID uuid = new UUID(bytes.getLong(), bytes.getLong());
        return (prefix.isEmpty() ? "" : prefix + "/") + "deletion_vector_" + uuid + ".bin";
    }

    /** Z85 (ZeroMQ's RFC 32): each 5 characters are 4 bytes, big-endian base 85. */
    private static ByteBuffer z85(String text) {
        ByteBuffer bytes = ByteBuffer.allocate(text.length() / 5 * 4);
        for (int i = 0; i < text.length(); i += 5) {
            long value = 0;
            for (int j = i; j < i + 5; j++) {
                int digit = Z85.indexOf(text.charAt(j));
                if (digit < 0) {
                    throw new IllegalStateException("'" + text + "' is not Z85: '" + text.charAt(j) + "'");
                }
                value = value * 85 + digit;
            }
            bytes.putInt((int) value);
        }
        return bytes.flip();
    }
}
