package io.floe.objectstore.s3;

import java.io.InputStream;
import java.nio.ByteBuffer;
import software.amazon.awssdk.http.ContentStreamProvider;

/**
 * A request body read straight from the caller's buffer, without the copy that
 * {@code RequestBody.fromByteBuffer} makes. Every attempt of a request (the SDK retries) gets a fresh
 * stream over its own duplicate, so the caller's position and limit never move. The caller must not
 * change the bytes while the put runs, which {@code ObjectStore.put} callers never do.
 */
final class ByteBufferContent implements ContentStreamProvider {

    private final ByteBuffer content;

    ByteBufferContent(ByteBuffer content) {
        this.content = content.duplicate();
    }

    @Override
    public InputStream newStream() {
        return new BufferStream(content.duplicate());
    }

    @Override
    public String name() {
        return "ByteBuffer";
    }

    private static final class BufferStream extends InputStream {

        private final ByteBuffer buffer;

        BufferStream(ByteBuffer buffer) {
            this.buffer = buffer;
        }

        @Override
        public int read() {
            return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) {
            if (length == 0) {
                return 0;
            }
            if (!buffer.hasRemaining()) {
                return -1;
            }
            int n = Math.min(length, buffer.remaining());
            buffer.get(bytes, offset, n);
            return n;
        }

        @Override
        public int available() {
            return buffer.remaining();
        }
    }
}
