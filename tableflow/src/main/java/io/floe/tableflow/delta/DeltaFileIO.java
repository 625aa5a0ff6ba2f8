package io.floe.tableflow.delta;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.tableflow.io.ObjectInputStream;
import io.floe.tableflow.io.ObjectLocations;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * Delta Kernel's file system on Floe's {@link ObjectStore}, for the Delta log and the data files it
 * reads. A Delta commit is a create-only put of {@code _delta_log/<version>.json}: the store's
 * {@link ObjectAlreadyExistsException} is Kernel's {@link FileAlreadyExistsException}, which is how two
 * writers of one version find out that one lost. Directories do not exist in the store: a directory
 * is the prefix of its objects' keys, {@code mkdirs} succeeds, and a directory with no object in it
 * is not found. Written files are buffered in memory (log files, and checkpoints of tables of a few
 * thousand files) and become one put when closed. Paths are fully qualified the way
 * {@link ObjectLocations} writes them ({@code file:/x}, never {@code file:///x}).
 */
final class DeltaFileIO implements FileIO {

    private final ObjectStore store;
    private final ObjectLocations locations;

    DeltaFileIO(ObjectStore store, ObjectLocations locations) {
        this.store = Objects.requireNonNull(store, "store");
        this.locations = Objects.requireNonNull(locations, "locations");
    }

    @Override
    public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
        String path = resolvePath(filePath);
        int slash = path.lastIndexOf('/');
        String directory = path.substring(0, slash);
        String from = path.substring(slash + 1);
        String prefix = locations.keyPrefix(directory);
        List<ObjectInfo> objects = list(prefix);
        if (objects.isEmpty()) {
            throw new FileNotFoundException("no objects below " + directory);
        }
        List<FileStatus> files = new ArrayList<>();
        for (ObjectInfo info : objects) {
            String name = info.key().value().substring(prefix.length());
            // Key order is UTF-8 byte order, which is what Kernel asks for; subdirectories are not files.
            if (!name.contains("/") && name.compareTo(from) >= 0) {
                files.add(status(info));
            }
        }
        return iterator(files.iterator());
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
        ObjectKey key = key(path);
        for (ObjectInfo info : list(key.value())) {
            if (info.key().equals(key)) {
                return status(info);
            }
        }
        throw new FileNotFoundException(path);
    }

    @Override
    public String resolvePath(String path) throws IOException {
        return locations.location(key(path));
    }

    @Override
    public boolean mkdirs(String path) {
        return true;
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
        return new ObjectInput(path, fileSize);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new ObjectOutput(path);
    }

    @Override
    public boolean delete(String path) throws IOException {
        try {
            store.delete(key(path));
            return true;
        } catch (RuntimeException e) {
            throw new IOException("cannot delete " + path + ": " + e, e);
        }
    }

    @Override
    public Optional<String> getConf(String confKey) {
        return Optional.empty();
    }

    @Override
    public void copyFileAtomically(String srcPath, String destPath, boolean overwrite) throws IOException {
        ByteBuffer content;
        try {
            content = store.get(key(srcPath));
        } catch (ObjectNotFoundException e) {
            throw new FileNotFoundException(srcPath);
        } catch (RuntimeException e) {
            throw new IOException("cannot read " + srcPath + ": " + e, e);
        }
        put(destPath, content, overwrite);
    }

    private void put(String path, ByteBuffer content, boolean overwrite) throws IOException {
        ObjectKey key = key(path);
        try {
            if (overwrite) {
                // Only _last_checkpoint and checkpoint files are overwritten; a reader that misses one
                // lists the log instead.
                store.delete(key);
            }
            store.put(key, content);
        } catch (ObjectAlreadyExistsException e) {
            throw new FileAlreadyExistsException(path);
        } catch (RuntimeException e) {
            throw new IOException("cannot put " + path + ": " + e, e);
        }
    }

    private List<ObjectInfo> list(String prefix) throws IOException {
        try {
            return store.list(prefix);
        } catch (RuntimeException e) {
            throw new IOException("cannot list " + prefix + ": " + e, e);
        }
    }

    private ObjectKey key(String path) throws IOException {
        try {
            return locations.key(path);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private FileStatus status(ObjectInfo info) {
        return FileStatus.of(
                locations.location(info.key()),
                info.sizeBytes(),
                info.lastModified().toEpochMilli());
    }

    private static <T> CloseableIterator<T> iterator(Iterator<T> items) {
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return items.hasNext();
            }

            @Override
            public T next() {
                return items.next();
            }

            @Override
            public void close() {}
        };
    }

    private final class ObjectInput implements InputFile {
        private final String path;
        private long size;

        ObjectInput(String path, long size) {
            this.path = path;
            this.size = size;
        }

        @Override
        public long length() throws IOException {
            // Kernel passes 0 for a file it has not listed (_last_checkpoint): the store knows its size,
            // and whether it exists at all.
            if (size <= 0) {
                size = getFileStatus(path).getSize();
            }
            return size;
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public SeekableInputStream newStream() throws IOException {
            return new KernelStream(new ObjectInputStream(store, key(path), path, length()), path);
        }
    }

    /**
     * Kernel's stream over {@link ObjectInputStream}, the ranged reads Iceberg's FileIO uses; a missing
     * object is Kernel's {@link FileNotFoundException}.
     */
    private static final class KernelStream extends SeekableInputStream {
        private final ObjectInputStream in;
        private final String path;

        KernelStream(ObjectInputStream in, String path) {
            this.in = in;
            this.path = path;
        }

        @Override
        public long getPos() {
            return in.getPos();
        }

        @Override
        public void seek(long newPosition) throws IOException {
            in.seek(newPosition);
        }

        @Override
        public int read() throws IOException {
            try {
                return in.read();
            } catch (NotFoundException e) {
                throw missing(e);
            }
        }

        @Override
        public int read(byte[] bytes, int offset, int count) throws IOException {
            try {
                return in.read(bytes, offset, count);
            } catch (NotFoundException e) {
                throw missing(e);
            }
        }

        @Override
        public void readFully(byte[] bytes, int offset, int count) throws IOException {
            int done = 0;
            while (done < count) {
                int n = read(bytes, offset + done, count - done);
                if (n < 0) {
                    throw new EOFException("end of " + path + " after " + done + " of " + count + " bytes");
                }
                done += n;
            }
        }

        private FileNotFoundException missing(NotFoundException e) {
            FileNotFoundException missing = new FileNotFoundException(path);
            missing.initCause(e);
            return missing;
        }

        @Override
        public void close() {
            in.close();
        }
    }

    private final class ObjectOutput implements OutputFile {
        private final String path;

        ObjectOutput(String path) {
            this.path = path;
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public PositionOutputStream create(boolean atomicWrite) {
            // Kernel writes checkpoint Parquet files this way; they overwrite what is there (the same
            // checkpoint written again). A put is atomic either way.
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            return new PositionOutputStream() {
                private boolean closed;

                @Override
                public long getPos() {
                    return buffer.size();
                }

                @Override
                public void write(int b) {
                    buffer.write(b);
                }

                @Override
                public void write(byte[] bytes, int offset, int count) {
                    buffer.write(bytes, offset, count);
                }

                @Override
                public void close() throws IOException {
                    if (!closed) {
                        closed = true;
                        put(path, ByteBuffer.wrap(buffer.toByteArray()), true);
                    }
                }
            };
        }

        @Override
        public void writeAtomically(CloseableIterator<String> data, boolean overwrite) throws IOException {
            StringBuilder text = new StringBuilder();
            try (data) {
                while (data.hasNext()) {
                    text.append(data.next()).append('\n');
                }
            }
            put(path, ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)), overwrite);
        }
    }
}
