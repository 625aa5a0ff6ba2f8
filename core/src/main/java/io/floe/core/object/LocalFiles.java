package io.floe.core.object;

/**
 * The capability of an object store that keeps its objects on this machine, as files (the local
 * directory store) or in memory (the simulation's store): ranges of them can be handed to the network
 * without being read ({@code sendfile}), the operating system's page cache holds freshly written
 * objects so an agent need not keep copies of them in memory, and assigned base offsets can be written
 * into them after a commit. A store that has it answers {@link ObjectStore#localFiles()}; callers ask
 * once, when they are wired, and decorators pass their delegate's capability on. Thread-safe as the
 * store is.
 */
public interface LocalFiles {

    /**
     * {@code range} of the object, held open for the network to send without reading it. The same
     * request as {@link ObjectStore#get(ObjectKey, ByteRange)}, with the same errors; the caller
     * releases the returned range. Its bytes are not checked by anyone on the way: Kafka clients check
     * batch CRCs themselves.
     */
    ObjectFileRange getFileRange(ObjectKey key, ByteRange range);

    /**
     * Writes assigned base offsets into the object (each {@code offsets[i]} as the 8 bytes at
     * {@code positions[i]}, where a stored batch starts): the batch's {@code baseOffset} field, which
     * lies outside its CRC and which every reader patches in from the batch's coordinate anyway.
     * Afterwards runs of those batches can be sent from the file as they are. The object stays valid by
     * every check; its other bytes never change. Not forced to disk: after a crash the file may hold the
     * producer's offsets or the assigned ones.
     *
     * @throws ObjectNotFoundException when the object is missing
     * @throws ObjectStoreException when a position lies past the object's end, or the write fails
     */
    void writeBaseOffsets(ObjectKey key, long[] positions, long[] offsets);
}
