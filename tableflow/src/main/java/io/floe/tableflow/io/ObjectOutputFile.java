package io.floe.tableflow.io;

import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/** A file Iceberg writes: spooled locally, put into the store (create-only) when the stream closes. */
final class ObjectOutputFile implements OutputFile {

    private final ObjectStore store;
    private final ObjectKey key;
    private final String location;
    private final Path spoolDirectory;

    ObjectOutputFile(ObjectStore store, ObjectKey key, String location, Path spoolDirectory) {
        this.store = store;
        this.key = key;
        this.location = location;
        this.spoolDirectory = spoolDirectory;
    }

    @Override
    public PositionOutputStream create() {
        return new SpoolingStream(false, spool());
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
        return new SpoolingStream(true, spool());
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public InputFile toInputFile() {
        return new ObjectInputFile(store, key, location, -1);
    }

    private Path spool() {
        try {
            Files.createDirectories(spoolDirectory);
            return Files.createTempFile(spoolDirectory, "iceberg-", ".spool");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spool " + location + " in " + spoolDirectory, e);
        }
    }

    private static OutputStream open(Path spool, String location) {
        try {
            return new BufferedOutputStream(Files.newOutputStream(spool), 1 << 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spool " + location + " in " + spool, e);
        }
    }

    private final class SpoolingStream extends CountingPositionStream {

        private final boolean overwrite;
        private final Path spool;
        private boolean closed;

        SpoolingStream(boolean overwrite, Path spool) {
            super(open(spool, location));
            this.overwrite = overwrite;
            this.spool = spool;
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                super.close();
                upload();
            } finally {
                Files.deleteIfExists(spool);
            }
        }

        private void upload() throws IOException {
            try (FileChannel channel = FileChannel.open(spool, StandardOpenOption.READ)) {
                MappedByteBuffer content = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
                if (overwrite) {
                    store.delete(key);
                }
                store.put(key, content);
            } catch (ObjectAlreadyExistsException e) {
                throw new AlreadyExistsException(e, "File already exists: %s", location);
            } catch (RuntimeException e) {
                throw new IOException("cannot upload " + location + ": " + e, e);
            }
        }
    }
}
