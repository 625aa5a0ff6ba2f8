package io.floe.core.object;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * Immutable-object storage: the only place Floe keeps record data.
 *
 * <p>Contract, for every implementation:
 * <ul>
 *   <li><b>Create-only.</b> {@link #put} never replaces an existing object: it throws
 *       {@link ObjectAlreadyExistsException} and leaves the stored object untouched. Once {@code put}
 *       returns, the object is durable and readable in full by every caller of {@link #get}.</li>
 *   <li><b>Unknown outcomes.</b> A {@code put} that throws a retriable {@link ObjectStoreException}
 *       may or may not have stored the object. Callers treat the key as possibly written: they never
 *       reuse it for other content, and only the orphan sweep (which is fenced by the metadata store)
 *       may delete it.</li>
 *   <li><b>Reads</b> return exactly the requested range, or throw {@link ObjectNotFoundException}; a
 *       range past the end of the object is an error, never a short read.</li>
 *   <li><b>Delete</b> is idempotent: deleting a missing object succeeds.</li>
 *   <li><b>Listing</b> is by key prefix, in key order; it may miss objects written concurrently.</li>
 *   <li>All methods block the calling thread and are safe to call from many threads at once.</li>
 * </ul>
 * Callers verify Floe's own checksums (segment footer CRC, batch CRC) on what they read: some stores
 * return no checksum and a flipped bit would otherwise go unnoticed.
 */
public interface ObjectStore extends AutoCloseable {

    /** Stores {@code content} (from its position to its limit) under {@code key}, create-only. */
    void put(ObjectKey key, ByteBuffer content);

    /**
     * Reads {@code range} of the object. The returned buffer holds exactly {@code range.length()} bytes
     * and is the caller's: it may be written to (a private mapping, for example), and writes never
     * reach the store.
     */
    ByteBuffer get(ObjectKey key, ByteRange range);

    /** Reads the whole object. */
    ByteBuffer get(ObjectKey key);

    /**
     * The store's {@link LocalFiles} capability, or empty when it keeps no objects on this machine
     * (then everything is read with {@link #get(ObjectKey, ByteRange)}). The same answer every time:
     * callers ask once, when they are wired. A decorator answers with its delegate's capability,
     * wrapped as it needs, or deliberately empty.
     */
    default Optional<LocalFiles> localFiles() {
        return Optional.empty();
    }

    /** Objects whose keys start with {@code prefix}, in key order. */
    List<ObjectInfo> list(String prefix);

    /** Deletes the object; succeeds when it is already gone. */
    void delete(ObjectKey key);

    /** A short description for logs: the kind of store and where it is. */
    String describe();

    @Override
    void close();
}
