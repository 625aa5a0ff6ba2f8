package io.floe.tableflow.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;

/**
 * The files a table's Delta log references, as Delta's VACUUM counts them: the data files (and
 * deletion-vector files) of its latest version, and those of its tombstones, the {@code remove} actions
 * that the latest version still carries, each with the time of its removal. A reader of an older version
 * may still read a removed file until its tombstone expires, {@code delta.deletedFileRetentionDuration}
 * (1 week by default) after the removal: {@link #retainedAt} is every file that must stay until then.
 *
 * <p>Read by replaying the log as Delta's protocol defines it ("Action Reconciliation"): the latest
 * complete checkpoint at or below the latest version, then each commit after it in order, the newest
 * action of a logical file (its path and deletion vector) winning. The protocol has a checkpoint keep
 * every tombstone not yet expired, but Delta Kernel 4.4's checkpoints keep only those of the commits
 * since the checkpoint before them (its checkpoint writer drops the {@code remove} rows it reads from
 * that checkpoint): so the tombstones of every earlier checkpoint written within the retention (and a
 * margin for clock skew) are read first. Kernel's public API gives the live files but not the
 * tombstones, so the replay reads the {@code add} and {@code remove} columns itself with Kernel's Parquet
 * and JSON readers; Kernel's snapshot gives the version and the table properties and checks that the
 * log can be read.
 */
public final class DeltaFileReferences {

    private static final StructType DELETION_VECTOR = new StructType()
            .add("storageType", StringType.STRING)
            .add("pathOrInlineDv", StringType.STRING)
            .add("offset", IntegerType.INTEGER);
    private static final StructType ACTIONS = new StructType()
            .add("add", new StructType().add("path", StringType.STRING).add("deletionVector", DELETION_VECTOR))
            .add(
                    "remove",
                    new StructType()
                            .add("path", StringType.STRING)
                            .add("deletionTimestamp", LongType.LONG)
                            .add("deletionVector", DELETION_VECTOR));
    private static final int ADD = 0;
    private static final int REMOVE = 1;

    /** How much later than a checkpoint's object a tombstone in it may have been stamped (clock skew). */
    static final Duration CLOCK_SKEW_MAX = Duration.ofHours(1);

    private final long version;
    private final Set<String> live;
    private final Map<String, Long> removedAt;
    private final Duration deletedFileRetention;

    private DeltaFileReferences(
            long version, Set<String> live, Map<String, Long> removedAt, Duration deletedFileRetention) {
        this.version = version;
        this.live = Set.copyOf(live);
        this.removedAt = Map.copyOf(removedAt);
        this.deletedFileRetention = deletedFileRetention;
    }

    /**
     * What the Delta log of {@code table} references, for a caller that deletes files at {@code now};
     * empty when the table has no Delta log, or one that was turned off and whose time passed
     * ({@link DeltaRetirement}). Throws when it has one that cannot be read (then nothing it may reference
     * can be told apart: delete nothing).
     */
    public static Optional<DeltaFileReferences> read(Table table, Instant now) {
        return read(table, now, new TombstoneCache());
    }

    /** As {@link #read(Table, Instant)}, reading each earlier checkpoint's tombstones once into {@code cache}. */
    public static Optional<DeltaFileReferences> read(Table table, Instant now, TombstoneCache cache) {
        if (DeltaRetirement.retired(table, now)) {
            return Optional.empty(); // turned off and past its time: it keeps nothing, however much is left
        }
        return DeltaLogLocation.of(table).map(log -> read(log, now, cache));
    }

    static DeltaFileReferences read(DeltaLogLocation log, Instant now, TombstoneCache cache) {
        Engine engine = log.engine();
        Snapshot latest = log.latest(engine);
        Duration retention = DeltaRetention.of(latest.getTableProperties()).deletedFiles();
        DeltaLogListing listing = DeltaLogListing.of(log.logPrefix(), log.list());
        Replay replay = new Replay(log, engine, cache);
        OptionalLong checkpoint = listing.checkpointAtOrBelow(latest.getVersion());
        if (checkpoint.isPresent()) {
            Instant since = now.minus(retention).minus(CLOCK_SKEW_MAX);
            for (List<DeltaLogFile> earlier : listing.checkpointsWrittenAfter(since, checkpoint.getAsLong())) {
                replay.tombstones(earlier);
            }
            replay.checkpoint(listing.checkpoint(checkpoint.getAsLong()));
        }
        for (DeltaLogFile commit : listing.commits(checkpoint.orElse(-1) + 1, latest.getVersion())) {
            replay.commit(commit);
        }
        return replay.references(latest.getVersion(), retention);
    }

    /** The Delta version read. */
    public long version() {
        return version;
    }

    /** Locations of the data and deletion-vector files of the latest version. */
    public Set<String> liveFiles() {
        return live;
    }

    /** How long a removed file stays readable by older versions. */
    public Duration deletedFileRetention() {
        return deletedFileRetention;
    }

    /**
     * Locations of every file a Delta version may still read at {@code now}: those of the latest
     * version, and those removed less than the retention before {@code now} (a tombstone expires when
     * {@code now} is past its removal plus the retention, as VACUUM has it).
     */
    public Set<String> retainedAt(Instant now) {
        long expiredBefore = now.minus(deletedFileRetention).toEpochMilli();
        Set<String> retained = new HashSet<>(live);
        removedAt.forEach((file, removed) -> {
            if (removed > expiredBefore) {
                retained.add(file);
            }
        });
        return retained;
    }

    /** One {@code add} or {@code remove} of a logical file: its data file and deletion-vector file. */
    private record FileAction(String logicalFile, String dataFile, String vectorFile, long deletionTimestamp) {}

    /**
     * The tombstones of a table's earlier Delta checkpoints, by checkpoint object (key, size, time): a
     * checkpoint is never changed once written, so each is read once while it stays within the
     * retention. Keeps at most {@link #CHECKPOINTS_MAX} checkpoints, the least recently used going first
     * (a week of checkpoints at one commit a minute is about a thousand). Not thread-safe: one table's
     * job thread uses it.
     */
    public static final class TombstoneCache {
        static final int CHECKPOINTS_MAX = 4096;

        private final Map<String, List<FileAction>> checkpoints = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, List<FileAction>> eldest) {
                return size() > CHECKPOINTS_MAX;
            }
        };
        private long reads;

        /** How many checkpoints were read into the cache. */
        public long reads() {
            return reads;
        }

        private List<FileAction> tombstones(
                List<DeltaLogFile> parts, Function<List<DeltaLogFile>, List<FileAction>> read) {
            String key = parts.stream()
                    .map(file -> file.object().key().value() + "@"
                            + file.object().sizeBytes() + "@" + file.modified().toEpochMilli())
                    .collect(Collectors.joining(","));
            List<FileAction> cached = checkpoints.get(key);
            if (cached == null) {
                cached = List.copyOf(read.apply(parts));
                checkpoints.put(key, cached);
                reads++;
            }
            return cached;
        }
    }

    /** Log replay of the file actions: the newest action of each logical file. */
    private static final class Replay {
        private final DeltaLogLocation log;
        private final Engine engine;
        private final Map<String, FileAction> added = new HashMap<>();
        private final Map<String, FileAction> removed = new HashMap<>();
        private final TombstoneCache cache;

        Replay(DeltaLogLocation log, Engine engine, TombstoneCache cache) {
            this.log = log;
            this.engine = engine;
            this.cache = cache;
        }

        /** A checkpoint: the live files and tombstones of its version, each logical file once. */
        void checkpoint(List<DeltaLogFile> parts) {
            List<FileAction> adds = new ArrayList<>();
            List<FileAction> removes = new ArrayList<>();
            read(parts, adds, removes);
            apply(removes, adds);
        }

        /** The tombstones of an earlier checkpoint: files removed then, unless a later action names them. */
        void tombstones(List<DeltaLogFile> parts) {
            apply(
                    cache.tombstones(parts, checkpoint -> {
                        List<FileAction> removes = new ArrayList<>();
                        read(checkpoint, new ArrayList<>(), removes);
                        return removes;
                    }),
                    List.of());
        }

        private void read(List<DeltaLogFile> parts, List<FileAction> adds, List<FileAction> removes) {
            try (CloseableIterator<FileReadResult> results =
                    engine.getParquetHandler().readParquetFiles(statuses(parts), ACTIONS, Optional.empty())) {
                while (results.hasNext()) {
                    collect(results.next().getData(), adds, removes);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot read delta checkpoint " + parts.get(0).object().key(), e);
            }
        }

        /**
         * One commit. Its actions are not ordered, and a file removed and added again in one commit is
         * live: removes apply first.
         */
        void commit(DeltaLogFile commit) {
            List<FileAction> adds = new ArrayList<>();
            List<FileAction> removes = new ArrayList<>();
            try (CloseableIterator<ColumnarBatch> batches =
                    engine.getJsonHandler().readJsonFiles(statuses(List.of(commit)), ACTIONS, Optional.empty())) {
                while (batches.hasNext()) {
                    collect(batches.next(), adds, removes);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot read delta commit " + commit.object().key(), e);
            }
            apply(removes, adds);
        }

        private void apply(List<FileAction> removes, List<FileAction> adds) {
            for (FileAction remove : removes) {
                added.remove(remove.logicalFile());
                removed.put(remove.logicalFile(), remove);
            }
            for (FileAction add : adds) {
                removed.remove(add.logicalFile());
                added.put(add.logicalFile(), add);
            }
        }

        private void collect(ColumnarBatch batch, List<FileAction> adds, List<FileAction> removes) {
            ColumnVector add = batch.getColumnVector(ADD);
            ColumnVector remove = batch.getColumnVector(REMOVE);
            for (int row = 0; row < batch.getSize(); row++) {
                if (!add.isNullAt(row)) {
                    adds.add(action(add.getChild(0), add.getChild(1), row, 0));
                }
                if (!remove.isNullAt(row)) {
                    ColumnVector timestamp = remove.getChild(1);
                    // Delta counts a tombstone without a time as removed at the epoch: expired.
                    long removedAt = timestamp.isNullAt(row) ? 0 : timestamp.getLong(row);
                    removes.add(action(remove.getChild(0), remove.getChild(2), row, removedAt));
                }
            }
        }

        private FileAction action(ColumnVector path, ColumnVector vector, int row, long deletionTimestamp) {
            String dataFile = location(path.getString(row));
            if (vector.isNullAt(row)) {
                return new FileAction(dataFile, dataFile, null, deletionTimestamp);
            }
            String storageType = vector.getChild(0).getString(row);
            String pathOrInline = vector.getChild(1).getString(row);
            Integer offset =
                    vector.getChild(2).isNullAt(row) ? null : vector.getChild(2).getInt(row);
            String vectorFile = DeletionVectorFiles.path(storageType, pathOrInline)
                    .map(this::location)
                    .orElse(null);
            return new FileAction(
                    dataFile + " " + DeletionVectorFiles.uniqueId(storageType, pathOrInline, offset),
                    dataFile,
                    vectorFile,
                    deletionTimestamp);
        }

        /** The location of a path in the log: a URI, relative to the table or absolute. */
        private String location(String path) {
            URI uri;
            try {
                uri = new URI(path);
            } catch (URISyntaxException e) {
                throw new IllegalStateException("delta log path '" + path + "' is not a URI", e);
            }
            String location = uri.isAbsolute()
                    ? uri.getScheme() + ":" + uri.getSchemeSpecificPart()
                    : log.tablePath() + "/" + uri.getPath();
            try {
                return log.locations().location(log.locations().key(location));
            } catch (IllegalArgumentException e) {
                return location; // outside Floe's store: kept as written, and never deleted by Floe
            }
        }

        DeltaFileReferences references(long version, Duration retention) {
            Set<String> live = new HashSet<>();
            for (FileAction add : added.values()) {
                live.add(add.dataFile());
                if (add.vectorFile() != null) {
                    live.add(add.vectorFile());
                }
            }
            Map<String, Long> removedAt = new HashMap<>();
            for (FileAction remove : removed.values()) {
                removedAt.merge(remove.dataFile(), remove.deletionTimestamp(), Math::max);
                if (remove.vectorFile() != null) {
                    removedAt.merge(remove.vectorFile(), remove.deletionTimestamp(), Math::max);
                }
            }
            return new DeltaFileReferences(version, live, removedAt, retention);
        }

        private CloseableIterator<FileStatus> statuses(List<DeltaLogFile> files) {
            Iterator<DeltaLogFile> it = files.iterator();
            return new CloseableIterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public FileStatus next() {
                    DeltaLogFile file = it.next();
                    return FileStatus.of(
                            log.locations().location(file.object().key()),
                            file.object().sizeBytes(),
                            file.modified().toEpochMilli());
                }

                @Override
                public void close() {}
            };
        }
    }
}
