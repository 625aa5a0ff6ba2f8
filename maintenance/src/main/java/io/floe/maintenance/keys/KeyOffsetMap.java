package io.floe.maintenance.keys;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Key to newest offset, in a fixed amount of memory, as Kafka's {@code SkimpyOffsetMap}: a key is
 * kept as its 16-byte MD5 digest next to an 8-byte offset, in one array of slots probed linearly from
 * the slot the digest names. The map takes at most {@link #LOAD_FACTOR} of its slots, so probe
 * sequences stay short; callers check {@link #capacity()} before they add.
 *
 * <p>Two keys with one digest would share an entry, and the older key's record would then be removed
 * in favour of the newer key's: with a 128-bit digest that is as unlikely as Kafka accepts. Not
 * thread-safe; one map per job.
 */
final class KeyOffsetMap {

    static final int DIGEST_BYTES = 16;
    static final int ENTRY_BYTES = DIGEST_BYTES + Long.BYTES;
    static final double LOAD_FACTOR = 0.9;

    private final byte[] slots;
    private final int slotCount;
    private final int capacity;
    private final MessageDigest md5;
    private final byte[] digest = new byte[DIGEST_BYTES];
    private int size;

    KeyOffsetMap(int memoryBytes) {
        slotCount = memoryBytes / ENTRY_BYTES;
        if (slotCount < 2) {
            throw new IllegalArgumentException("a key offset map of " + memoryBytes + " bytes holds no entry");
        }
        slots = new byte[slotCount * ENTRY_BYTES];
        capacity = capacityFor(memoryBytes);
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has MD5", e);
        }
    }

    /** How many keys a map of {@code memoryBytes} takes. */
    static int capacityFor(int memoryBytes) {
        return (int) (memoryBytes / ENTRY_BYTES * LOAD_FACTOR);
    }

    /**
     * Records {@code offset} for the key (the bytes from its position to its limit, which do not
     * move). Keeps the larger offset when the key is there already.
     *
     * @throws IllegalStateException when the map is full and the key is new
     */
    void put(ByteBuffer key, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        int slot = find(key);
        int at = slot * ENTRY_BYTES;
        long stored = readOffset(at);
        if (stored < 0) {
            if (size >= capacity) {
                throw new IllegalStateException("key offset map full at " + size + " keys");
            }
            System.arraycopy(digest, 0, slots, at, DIGEST_BYTES);
            size++;
        }
        writeOffset(at, Math.max(stored, offset));
    }

    /** The newest offset recorded for the key, or -1. */
    long get(ByteBuffer key) {
        return readOffset(find(key) * ENTRY_BYTES);
    }

    int size() {
        return size;
    }

    int capacity() {
        return capacity;
    }

    void clear() {
        Arrays.fill(slots, (byte) 0);
        size = 0;
    }

    /** The slot holding the key's digest, or the empty slot where it would go; leaves the digest in {@link #digest}. */
    private int find(ByteBuffer key) {
        md5.update(key.duplicate());
        try {
            md5.digest(digest, 0, DIGEST_BYTES);
        } catch (DigestException e) {
            throw new IllegalStateException("MD5 digest", e);
        }
        int slot = Math.floorMod(ByteBuffer.wrap(digest).getInt(), slotCount);
        while (true) {
            int at = slot * ENTRY_BYTES;
            if (readOffset(at) < 0 || Arrays.equals(slots, at, at + DIGEST_BYTES, digest, 0, DIGEST_BYTES)) {
                return slot;
            }
            slot = slot + 1 == slotCount ? 0 : slot + 1;
        }
    }

    /** Offsets are stored plus one, so a zeroed slot reads as empty (-1). */
    private long readOffset(int at) {
        long value = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            value = (value << 8) | (slots[at + DIGEST_BYTES + i] & 0xFF);
        }
        return value - 1;
    }

    private void writeOffset(int at, long offset) {
        long value = offset + 1;
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            slots[at + DIGEST_BYTES + i] = (byte) value;
            value >>>= 8;
        }
    }
}
