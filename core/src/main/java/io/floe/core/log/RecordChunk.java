package io.floe.core.log;

import io.floe.core.object.ObjectFileRange;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A piece of record-batch bytes on its way to a client: bytes in memory, or bytes of an object file
 * that the network sends without the agent reading them.
 */
public sealed interface RecordChunk {

    /** Bytes in the chunk. */
    int length();

    /** Bytes in memory (a slice of a cached or read object, or a patched field). */
    record InMemory(ByteBuffer bytes) implements RecordChunk {

        public InMemory {
            Objects.requireNonNull(bytes, "bytes");
        }

        @Override
        public int length() {
            return bytes.remaining();
        }
    }

    /**
     * Bytes {@code [position, position + length)} of the object {@code file} holds open. The chunk
     * owns one reference to {@code file}: whoever sends or drops the chunk releases it.
     */
    record InFile(ObjectFileRange file, long position, int length) implements RecordChunk {

        public InFile {
            Objects.requireNonNull(file, "file");
            if (position < file.range().position()
                    || length < 0
                    || position + length > file.range().end()) {
                throw new IllegalArgumentException("[" + position + ", " + (position + length) + ") is outside "
                        + file.range() + " of " + file.key());
            }
        }
    }
}
