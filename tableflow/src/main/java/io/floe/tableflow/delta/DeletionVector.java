package io.floe.tableflow.delta;

import io.floe.tableflow.io.ObjectLocations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * A deletion vector the two logs share: one Iceberg {@code deletion-vector-v1} blob in a Puffin file,
 * which a Delta {@code add} action points at as a deletion vector stored at an absolute path (storage
 * type {@code p}). The two formats frame a vector alike: a 4-byte big-endian length, the magic
 * {@code D1 D3 39 64} and the 64-bit Roaring bitmap it counts, then a 4-byte big-endian CRC-32 of
 * those bytes. Iceberg's manifest gives the blob's offset and its whole length; Delta's descriptor
 * gives the same offset (where the length prefix starts) and the length the prefix holds, 8 bytes
 * less. The Delta file's leading version byte is never read: a reader seeks to the offset.
 *
 * @param location the Puffin file, as {@link ObjectLocations} writes locations
 * @param offset where the blob (its length prefix) starts in the file
 * @param sizeInBytes the magic and bitmap bytes: the blob less its length prefix and checksum
 * @param cardinality the rows the vector deletes
 */
record DeletionVector(String location, int offset, int sizeInBytes, long cardinality) {

    /** The length prefix and the checksum around a vector's bytes, in both formats. */
    static final int FRAME_BYTES = 8;

    /** The vector of Iceberg delete file {@code vector}; refuses any other kind of delete file. */
    static DeletionVector of(DeleteFile vector, ObjectLocations locations) {
        if (!ContentFileUtil.isDV(vector)) {
            throw new IllegalStateException("delete file " + vector.location() + " (" + vector.format()
                    + ") of data file " + vector.referencedDataFile()
                    + " is not a deletion vector, which is the only delete file a Delta log can express");
        }
        long offset = vector.contentOffset();
        long size = vector.contentSizeInBytes() - FRAME_BYTES;
        if (offset > Integer.MAX_VALUE || size < 1 || size > Integer.MAX_VALUE) {
            throw new IllegalStateException("deletion vector at offset " + offset + " of " + vector.location()
                    + " with " + vector.contentSizeInBytes() + " bytes does not fit a Delta descriptor"
                    + " (offset and size are 32-bit there)");
        }
        return new DeletionVector(
                locations.location(locations.key(vector.location())), (int) offset, (int) size, vector.recordCount());
    }
}
