package io.floe.objectstore.s3;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Reads GET response bodies into buffers of exactly the requested size. A body that ends early
 * (the connection broke) is an {@link IOException}, retriable for the caller; a range the object
 * cannot fill is a past-the-end error.
 */
final class RangeReads {

    /** {@code Content-Range: bytes 0-99/1000}; the total may be '*' when the store does not know it. */
    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");

    /** Builds the error for a range past the end of an object of {@code sizeBytes}. */
    @FunctionalInterface
    interface PastEnd {
        ObjectStoreException of(ObjectKey key, ByteRange range, long sizeBytes);
    }

    private RangeReads() {}

    /** Reads the answer to {@code Range: bytes=<range>}. */
    static ByteBuffer read(ResponseInputStream<GetObjectResponse> in, ObjectKey key, ByteRange range, PastEnd pastEnd)
            throws IOException {
        String contentRange = in.response().contentRange();
        if (contentRange == null) {
            return readFromWholeObject(in, key, range, pastEnd);
        }
        Matcher matcher = CONTENT_RANGE.matcher(contentRange);
        if (!matcher.matches() || Long.parseLong(matcher.group(1)) != range.position()) {
            in.abort();
            throw new IOException("unexpected Content-Range '" + contentRange + "' for range " + range);
        }
        long last = Long.parseLong(matcher.group(2));
        long sizeBytes = matcher.group(3).equals("*") ? last + 1 : Long.parseLong(matcher.group(3));
        if (last + 1 < range.end() || sizeBytes < range.end()) {
            in.abort();
            throw pastEnd.of(key, range, sizeBytes);
        }
        return ByteBuffer.wrap(readExactly(in, range.length()));
    }

    /** A store that ignores Range answers 200 with the whole object: takes the range from it. */
    private static ByteBuffer readFromWholeObject(
            ResponseInputStream<GetObjectResponse> in, ObjectKey key, ByteRange range, PastEnd pastEnd)
            throws IOException {
        Long sizeBytes = in.response().contentLength();
        if (sizeBytes == null || sizeBytes < range.end()) {
            in.abort();
            throw pastEnd.of(key, range, sizeBytes == null ? -1 : sizeBytes);
        }
        in.skipNBytes(range.position());
        byte[] bytes = readExactly(in, range.length());
        in.abort(); // drops the rest of the object with the connection instead of reading it to the end
        return ByteBuffer.wrap(bytes);
    }

    /** Reads a whole object, which must fit in one buffer. */
    static ByteBuffer readWhole(ResponseInputStream<GetObjectResponse> in, ObjectKey key, String location)
            throws IOException {
        Long sizeBytes = in.response().contentLength();
        if (sizeBytes == null || sizeBytes > Integer.MAX_VALUE) {
            in.abort();
            throw new ObjectStoreException(
                    "object " + key + " in " + location + " has "
                            + (sizeBytes == null ? "an unknown number of" : sizeBytes)
                            + " bytes, more than one buffer holds; read it by ranges",
                    false);
        }
        return ByteBuffer.wrap(readExactly(in, sizeBytes.intValue()));
    }

    private static byte[] readExactly(ResponseInputStream<GetObjectResponse> in, int length) throws IOException {
        byte[] bytes = new byte[length];
        int read = in.readNBytes(bytes, 0, length);
        if (read < length) {
            throw new IOException("the response body ended after " + read + " of " + length + " bytes");
        }
        return bytes;
    }
}
