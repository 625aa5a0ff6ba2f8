package io.floe.core.object;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ObjectStore} in a local directory: one file per object, the key's '/' separated names
 * mapped to nested directories under the root.
 *
 * <p>A put writes the content to a temporary file under {@code <root>/.tmp}, forces it to disk,
 * then hard-links it to its final name. {@code link(2)} fails when the target exists, so the put is
 * create-only even against other processes, and a reader sees either no file or the whole content.
 * The parent directory is forced after the link so the new name survives a crash. On file systems
 * without hard links the store falls back to an existence check plus an atomic rename, which is
 * create-only only among the puts of this instance (they hold one lock for it).
 *
 * <p>Keys must map to plain files: a key may not name a directory that holds other keys, use empty
 * or "." names, or start with the reserved {@code .tmp/} directory. Empty directories left by
 * deletes are kept: removing them would race with puts creating files in them.
 *
 * <p>Thread-safe. Temporary files of puts interrupted by a crash stay in {@code .tmp}; nothing
 * reads them.
 */
public final class LocalObjectStore implements ObjectStore, LocalFiles {

    private static final Logger LOGGER = LoggerFactory.getLogger(LocalObjectStore.class);
    private static final String TEMP_DIRECTORY = ".tmp";
    /** Reads at least this long are answered with a mapping of the file instead of a heap copy. */
    static final int MAP_MIN_BYTES = 64 * 1024;
    /** Object files kept open for fetches to send from (one descriptor each). */
    static final int OPEN_FILES_MAX = 128;
    /** Bounds the memory of known directories; forgetting them only costs a few extra syncs. */
    private static final int DURABLE_DIRECTORIES_MAX = 10_000;

    private final Path root;
    private final Path tempDirectory;
    /** Temporary files' names: unique to this process (its pid and start time) and this store. */
    private static final String PROCESS = ProcessHandle.current().pid() + "-"
            + ProcessHandle.current()
                    .info()
                    .startInstant()
                    .map(at -> Long.toString(at.toEpochMilli()))
                    .orElse("0");

    private static final AtomicLong STORES = new AtomicLong();
    private final String tempPrefix = PROCESS + "-" + STORES.incrementAndGet() + "-";
    private final AtomicLong temps = new AtomicLong();
    private final boolean hardLinks;
    /** Directories known to exist with their entry forced into the parent: no need to sync again. */
    private final Set<Path> durableDirectories = ConcurrentHashMap.newKeySet();
    /** Serialises check-then-rename in the fallback for file systems without hard links. */
    private final Object renameLock = new Object();

    private final OpenFiles openFiles = new OpenFiles(OPEN_FILES_MAX);

    /** Opens the store in {@code root}, creating the directory when it is missing. */
    public LocalObjectStore(Path root) {
        this(root, true);
    }

    /** With {@code tryHardLinks} false the store always uses the rename fallback; for its tests. */
    LocalObjectStore(Path root, boolean tryHardLinks) {
        Objects.requireNonNull(root, "root");
        try {
            Files.createDirectories(root);
            // The real path, so a root that is a symlink to another disk is walked as a directory.
            this.root = root.toRealPath();
            this.tempDirectory = Files.createDirectories(this.root.resolve(TEMP_DIRECTORY));
            syncDirectory(this.root.getParent());
            this.hardLinks = tryHardLinks && probeHardLinks(tempDirectory);
        } catch (IOException e) {
            throw new ObjectStoreException(
                    "cannot open local object store in " + root.toAbsolutePath() + ": " + e, retriable(e), e);
        }
    }

    @Override
    public void put(ObjectKey key, ByteBuffer content) {
        Objects.requireNonNull(content, "content");
        Path target = resolve(key);
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            throw alreadyExists(key, target);
        }
        Path temp = tempDirectory.resolve(tempPrefix + temps.incrementAndGet() + ".put");
        try {
            writeDurably(temp, content.duplicate());
            ensureDurableDirectory(key, target.getParent());
            publish(key, temp, target);
            syncDirectory(target.getParent());
        } catch (IOException e) {
            durableDirectories.remove(target.getParent());
            throw failure("put", key, e);
        } finally {
            deleteTemp(temp);
        }
    }

    @Override
    public ByteBuffer get(ObjectKey key, ByteRange range) {
        Objects.requireNonNull(range, "range");
        Path path = resolve(key);
        // WRITE only because Java maps a file privately (see readFully) only through a channel open for
        // writing; nothing is ever written through it.
        try (FileChannel channel = openForRead(key, path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            checkWithin(key, range, channel.size());
            return readFully(key, channel, range.position(), range.length());
        } catch (IOException e) {
            throw failure("get", key, e);
        }
    }

    @Override
    public Optional<LocalFiles> localFiles() {
        return Optional.of(this);
    }

    @Override
    public ObjectFileRange getFileRange(ObjectKey key, ByteRange range) {
        Objects.requireNonNull(range, "range");
        OpenObjectFile file;
        try {
            // The key is resolved to a path only when its file is not open already (the fetch path's common case).
            file = openFiles.acquire(key, () -> open(key, resolve(key)));
        } catch (IOException e) {
            throw failure("get", key, e);
        }
        try {
            checkWithin(key, range, file.size());
            return new ObjectFileRange(key, describe(), file, range);
        } catch (RuntimeException e) {
            file.release();
            throw e;
        }
    }

    @Override
    public void writeBaseOffsets(ObjectKey key, long[] positions, long[] offsets) {
        if (positions.length != offsets.length) {
            throw new IllegalArgumentException(positions.length + " positions for " + offsets.length + " offsets");
        }
        Path path = resolve(key);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            long size = channel.size();
            ByteBuffer field = ByteBuffer.allocate(Long.BYTES);
            for (int i = 0; i < positions.length; i++) {
                if (positions[i] < 0 || positions[i] + Long.BYTES > size) {
                    throw new ObjectStoreException(
                            "base offset at " + positions[i] + " of object " + key + " in " + describe()
                                    + " is past its end: the object has " + size + " bytes",
                            false);
                }
                field.clear();
                field.putLong(0, offsets[i]);
                while (field.hasRemaining()) {
                    channel.write(field, positions[i] + field.position());
                }
            }
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(key);
        } catch (IOException e) {
            throw failure("write base offsets", key, e);
        }
    }

    private OpenObjectFile open(ObjectKey key, Path path) throws IOException {
        FileChannel channel = openForRead(key, path, StandardOpenOption.READ);
        try {
            return new OpenObjectFile(channel);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }

    private void checkWithin(ObjectKey key, ByteRange range, long size) {
        if (range.end() > size) {
            throw new ObjectStoreException(
                    "range [" + range.position() + ", " + range.end() + ") of object " + key + " in " + describe()
                            + " is past its end: the object has " + size + " bytes",
                    false);
        }
    }

    @Override
    public ByteBuffer get(ObjectKey key) {
        Path path = resolve(key);
        try (FileChannel channel = openForRead(key, path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                throw new ObjectStoreException(
                        "object " + key + " in " + describe() + " has " + size
                                + " bytes, more than one buffer holds; read it by ranges",
                        false);
            }
            return readFully(key, channel, 0, (int) size);
        } catch (IOException e) {
            throw failure("get", key, e);
        }
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        List<ObjectInfo> found = new ArrayList<>();
        try {
            Files.walkFileTree(root, new PrefixVisitor(prefix, found));
        } catch (IOException e) {
            throw new ObjectStoreException(
                    "list prefix '" + prefix + "' in " + describe() + " failed: " + e, retriable(e), e);
        }
        found.sort(Comparator.comparing(ObjectInfo::key));
        return found;
    }

    @Override
    public void delete(ObjectKey key) {
        Path path = resolve(key);
        openFiles.evict(key);
        try {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                return; // a directory of other keys, never an object
            }
            if (Files.deleteIfExists(path)) {
                syncDirectory(path.getParent());
            }
        } catch (IOException e) {
            throw failure("delete", key, e);
        }
    }

    @Override
    public String describe() {
        return "file:" + root;
    }

    /** Lets go of the object files kept open for fetches; ranges still held keep theirs until released. */
    @Override
    public void close() {
        openFiles.clear();
    }

    @Override
    public String toString() {
        return describe();
    }

    private Path resolve(ObjectKey key) {
        Objects.requireNonNull(key, "key");
        String[] names = key.value().split("/", -1);
        for (String name : names) {
            if (name.isEmpty() || name.equals(".")) {
                throw new IllegalArgumentException("object key '" + key + "' has an empty or '.' name, which "
                        + describe() + " cannot store as a file");
            }
        }
        if (names[0].equals(TEMP_DIRECTORY)) {
            throw new IllegalArgumentException("object key '" + key + "' is inside the reserved directory "
                    + TEMP_DIRECTORY + " of " + describe());
        }
        return root.resolve(String.join(root.getFileSystem().getSeparator(), names));
    }

    private static void writeDurably(Path temp, ByteBuffer content) throws IOException {
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (content.hasRemaining()) {
                channel.write(content);
            }
            channel.force(true);
        }
    }

    /** Creates {@code dir} and its missing parents, forcing each new entry into its parent directory. */
    private void ensureDurableDirectory(ObjectKey key, Path dir) throws IOException {
        if (dir.equals(root) || durableDirectories.contains(dir)) {
            return;
        }
        ensureDurableDirectory(key, dir.getParent());
        try {
            Files.createDirectory(dir);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new ObjectStoreException(
                        "cannot put object " + key + " in " + describe() + ": " + root.relativize(dir)
                                + " is an object, not a directory",
                        false,
                        e);
            }
        }
        // Another thread may have created the directory without having synced its parent yet.
        syncDirectory(dir.getParent());
        if (durableDirectories.size() >= DURABLE_DIRECTORIES_MAX) {
            durableDirectories.clear();
        }
        durableDirectories.add(dir);
    }

    /** Gives the forced temp file its final name without ever replacing an existing file. */
    private void publish(ObjectKey key, Path temp, Path target) throws IOException {
        if (hardLinks) {
            try {
                Files.createLink(target, temp);
            } catch (FileAlreadyExistsException e) {
                throw alreadyExists(key, target);
            }
            return;
        }
        synchronized (renameLock) {
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                throw alreadyExists(key, target);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private ObjectStoreException alreadyExists(ObjectKey key, Path target) {
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            return new ObjectStoreException(
                    "cannot put object " + key + " in " + describe() + ": the key is a directory holding other objects",
                    false);
        }
        return new ObjectAlreadyExistsException(key);
    }

    private FileChannel openForRead(ObjectKey key, Path path, StandardOpenOption... options) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new ObjectNotFoundException(key);
        }
        try {
            return FileChannel.open(path, options);
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(key);
        }
    }

    private ByteBuffer readFully(ObjectKey key, FileChannel channel, long position, int length) throws IOException {
        if (length >= MAP_MIN_BYTES) {
            // A private mapping serves the file's page-cache pages without copying them into the heap:
            // no allocation to zero, no garbage, and the network sends straight from it. Writes (the
            // fetch path patches batch offsets) copy only the touched page and never reach the file.
            // Objects are immutable and never truncated, and a deleted file stays mapped until the
            // buffer is collected, so the mapping cannot go away under a reader.
            return channel.map(FileChannel.MapMode.PRIVATE, position, length);
        }
        return readIntoHeap(key, describe(), channel, position, length);
    }

    /** Reads {@code length} bytes from {@code position} into a new heap buffer; a short file is an error. */
    static ByteBuffer readIntoHeap(ObjectKey key, String store, FileChannel channel, long position, int length)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new ObjectStoreException(
                        "object " + key + " in " + store + " ended at "
                                + (position + buffer.position()) + " while reading " + length + " bytes from "
                                + position
                                + "; it was changed outside the store",
                        false);
            }
        }
        return buffer.flip();
    }

    /** Forces a directory's entries to disk. Some platforms (Windows) cannot open a directory: skip there. */
    private static void syncDirectory(Path dir) throws IOException {
        if (dir == null) {
            return;
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (IOException e) {
            return;
        }
        try (channel) {
            channel.force(true);
        }
    }

    private static void deleteTemp(Path temp) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            LOGGER.warn("could not delete temporary file path={}", temp, e);
        }
    }

    /** Decides once whether this file system supports hard links, by linking a throwaway file. */
    private static boolean probeHardLinks(Path tempDirectory) throws IOException {
        String name = PROCESS + "-" + STORES.incrementAndGet();
        Path probe = Files.createFile(tempDirectory.resolve(name + ".probe"));
        Path link = tempDirectory.resolve(name + ".probe-link");
        try {
            Files.createLink(link, probe);
            return true;
        } catch (UnsupportedOperationException | IOException e) {
            LOGGER.warn(
                    "no hard links, falling back to rename (create-only within this process only) path={}",
                    tempDirectory,
                    e);
            return false;
        } finally {
            deleteTemp(link);
            deleteTemp(probe);
        }
    }

    private ObjectStoreException failure(String operation, ObjectKey key, IOException e) {
        return new ObjectStoreException(
                operation + " object " + key + " in " + describe() + " failed: " + e, retriable(e), e);
    }

    /** Access problems need an operator; other I/O errors (full disk, a flaky mount) may pass. */
    private static boolean retriable(IOException e) {
        return !(e instanceof AccessDeniedException);
    }

    /** Collects the regular files whose keys start with the prefix, skipping subtrees that cannot match. */
    private final class PrefixVisitor extends SimpleFileVisitor<Path> {

        private final String prefix;
        private final List<ObjectInfo> found;

        PrefixVisitor(String prefix, List<ObjectInfo> found) {
            this.prefix = prefix;
            this.found = found;
        }

        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            if (dir.equals(root)) {
                return FileVisitResult.CONTINUE;
            }
            if (dir.equals(tempDirectory)) {
                return FileVisitResult.SKIP_SUBTREE;
            }
            String dirKey = keyOf(dir) + "/";
            boolean mayMatch = dirKey.startsWith(prefix) || prefix.startsWith(dirKey);
            return mayMatch ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            String key = keyOf(file);
            if (attrs.isRegularFile() && key.startsWith(prefix)) {
                try {
                    found.add(new ObjectInfo(
                            new ObjectKey(key),
                            attrs.size(),
                            attrs.lastModifiedTime().toInstant()));
                } catch (IllegalArgumentException e) {
                    LOGGER.warn("skipping a file whose name is no object key path={}", file);
                }
            }
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE; // deleted while listing
            }
            throw e;
        }

        private String keyOf(Path path) {
            Path relative = root.relativize(path);
            StringBuilder key = new StringBuilder();
            for (Path name : relative) {
                if (key.length() > 0) {
                    key.append('/');
                }
                key.append(name);
            }
            return key.toString();
        }
    }
}
