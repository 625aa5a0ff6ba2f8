package io.floe.tableflow.io;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * An {@link OutputStream} as Iceberg's {@link PositionOutputStream}: the position is the count of bytes
 * written through it. Closing closes the wrapped stream; a subclass that does not own it overrides
 * {@link #close()}.
 */
public class CountingPositionStream extends PositionOutputStream {

    private final OutputStream out;
    private long position;

    public CountingPositionStream(OutputStream out) {
        this.out = out;
    }

    @Override
    public long getPos() {
        return position;
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
        position++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        out.write(bytes, offset, length);
        position += length;
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
