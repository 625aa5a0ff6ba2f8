package io.floe.objectstore.s3;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * What one {@code put} stores as user metadata beside its content so that it can recognise its own
 * object later: a write id unique to the put, and the content's size and CRC32C.
 *
 * <p>Why: an SDK retry of a create-only PUT whose first response was lost finds the object the first
 * attempt stored and gets 412. Content alone cannot tell that apart from another writer's object with
 * the same bytes, which must stay "already exists"; the write id can, because every attempt of one put
 * sends the same id and no other put ever does. Size and checksum guard against an object that carries
 * the id but was changed afterwards.
 */
record WriteStamp(UUID writeId, long sizeBytes, long crc32c) {

    /** User metadata names, stored by S3 as {@code x-amz-meta-<name>}; S3 returns them lower-cased. */
    static final String WRITE_ID = "floe-write-id";

    static final String CRC32C_HEX = "floe-crc32c";

    WriteStamp {
        Objects.requireNonNull(writeId, "writeId");
    }

    /** The stamp of {@code content} from its position to its limit; the buffer is not moved. */
    static WriteStamp of(UUID writeId, ByteBuffer content) {
        CRC32C crc = new CRC32C();
        crc.update(content.duplicate());
        return new WriteStamp(writeId, content.remaining(), crc.getValue());
    }

    Map<String, String> toMetadata() {
        return Map.of(WRITE_ID, writeId.toString(), CRC32C_HEX, HexFormat.of().toHexDigits((int) crc32c));
    }

    /** How a stored object, described by its size and user metadata, relates to this put. */
    Match match(long storedSizeBytes, Map<String, String> storedMetadata) {
        String storedId = storedMetadata.get(WRITE_ID);
        if (!writeId.toString().equals(storedId)) {
            return Match.OTHER_WRITE;
        }
        boolean sameContent = storedSizeBytes == sizeBytes
                && toMetadata().get(CRC32C_HEX).equalsIgnoreCase(storedMetadata.getOrDefault(CRC32C_HEX, ""));
        return sameContent ? Match.THIS_WRITE : Match.THIS_WRITE_CHANGED;
    }

    enum Match {
        /** Stored by an earlier attempt of this very put: the put succeeded. */
        THIS_WRITE,
        /** Stored by another put (or another tool), whatever its content: the key was taken. */
        OTHER_WRITE,
        /** Carries this put's id but not its content: changed behind the store's back. */
        THIS_WRITE_CHANGED
    }
}
