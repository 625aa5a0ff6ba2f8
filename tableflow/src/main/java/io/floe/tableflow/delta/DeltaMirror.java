package io.floe.tableflow.delta;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.transaction.UpdateTableTransactionBuilder;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes an Iceberg table as a Delta table too: {@link #sync} brings the Delta log in
 * {@code <table location>/_delta_log/} up to the image of the table's current Iceberg snapshot, over
 * the same data files (Iceberg's Parquet files carry field ids, which Delta's column mapping in
 * {@code id} mode reads by; see {@link DeltaSchemas}). Each Delta commit records the Iceberg snapshot's
 * sequence number as the version of its {@code floe.iceberg} transaction, so the log is never ahead of
 * Iceberg and a sync that finds it already there commits nothing; one that finds it behind (a crash
 * after the Iceberg commit, a failed sync) commits the difference: the files Iceberg's snapshot has and
 * Delta's lacks are added, the files Delta has and Iceberg's snapshot no longer references are removed.
 * Versions already in the log are never written again.
 *
 * <p>An upsert table's deletion vectors are shared, not copied: each {@code add} action of a data file
 * that Iceberg's snapshot pairs with a deletion vector points at the bytes of that Puffin blob (see
 * {@link DeletionVector}), and a file is the same in both logs only with the same vector. When a round
 * replaces a file's vector, the Delta commit removes the file with its old vector and adds it with the
 * new one. Tables of Iceberg format version 3 get Delta's {@code deletionVectors} reader and writer
 * features ({@code delta.enableDeletionVectors}).
 *
 * <p>The Delta table is unpartitioned whatever Iceberg's spec: Iceberg's day and hour partitions are
 * transforms of the timestamp column, which Delta could only express as generated columns (Kernel
 * cannot write those). Every file holds every column, and the per-file min/max statistics let Delta
 * readers prune by timestamp as well.
 *
 * <p>Commits are not retried by Kernel: one that loses to another writer (a zombie agent, or a put
 * whose outcome was unknown and that in fact landed) is planned again from the reloaded log. A sync
 * that fails is logged, counted, and tried again at the table's next round; it never fails the round.
 * Not thread-safe: the table's job thread is its only caller.
 */
public final class DeltaMirror {

    private static final Logger LOGGER = LoggerFactory.getLogger(DeltaMirror.class);

    /** The Delta transaction whose version is the Iceberg snapshot's sequence number. */
    public static final String ICEBERG_TRANSACTION = "floe.iceberg";

    /** The Delta log's directory under the table location; nothing else of Delta's lives there. */
    public static final String LOG_DIRECTORY = "_delta_log";

    static final String ENGINE_INFO = "floe";
    static final String CHECKPOINT_INTERVAL = "10";
    static final String ENABLE_DELETION_VECTORS = "delta.enableDeletionVectors";
    private static final String COLUMN_MAPPING_MODE = "delta.columnMapping.mode";
    private static final String CHECKPOINT_INTERVAL_PROPERTY = "delta.checkpointInterval";
    /** The Iceberg format version whose tables may have deletion vectors (upsert tables). */
    private static final int DELETION_VECTORS_FORMAT = 3;

    private static final int ATTEMPTS = 3;
    /** Delta's own default for {@code delta.deletedFileRetentionDuration}. */
    static final Duration DEFAULT_FILE_RETENTION = DeltaRetention.of(Map.of()).deletedFiles();

    private final DeltaMetrics metrics;
    private final Clock clock;
    /** The Iceberg snapshot and schema this mirror last found or left the log at: nothing to read again. */
    private long mirroredSnapshot = -1;

    private int mirroredSchema = -1;

    private Duration mirroredRetention;

    public DeltaMirror(DeltaMetrics metrics, Clock clock) {
        this.metrics = metrics;
        this.clock = clock;
    }

    /** What a sync did. */
    public enum Outcome {
        /** The Iceberg table has no snapshot yet. */
        NOTHING_TO_MIRROR,
        /** The Delta log already held the current snapshot. */
        UP_TO_DATE,
        /** A Delta version was committed. */
        COMMITTED,
        /** Logged and counted; the next round tries again. */
        FAILED
    }

    /** As {@link #sync(Table, Duration)} with Delta's default file retention (1 week). */
    public Outcome sync(Table table) {
        return sync(table, DEFAULT_FILE_RETENTION);
    }

    /**
     * Brings the Delta log of {@code table} (as loaded) up to its current snapshot, with
     * {@code delta.deletedFileRetentionDuration} set to {@code fileRetention} (the table's snapshot
     * retention, so that both logs keep a removed file for the same time). Never throws.
     */
    public Outcome sync(Table table, Duration fileRetention) {
        try {
            Outcome outcome = mirror(table, fileRetention);
            if (outcome == Outcome.COMMITTED || outcome == Outcome.UP_TO_DATE) {
                mirroredSnapshot = table.currentSnapshot().snapshotId();
                mirroredSchema = table.currentSnapshot().schemaId();
                mirroredRetention = fileRetention;
            }
            if (outcome == Outcome.COMMITTED) {
                metrics.committed(table.name());
            }
            return outcome;
        } catch (RuntimeException e) {
            metrics.failed(table.name());
            LOGGER.warn(
                    "delta log not updated table={} location={}: {}; the next round tries again (the Iceberg"
                            + " table is unaffected; if this persists, fix the cause or turn"
                            + " floe.tableflow.delta.enabled off)",
                    table.name(),
                    table.location(),
                    e.toString());
            LOGGER.debug("delta log failure of {}", table.name(), e);
            return Outcome.FAILED;
        }
    }

    /** Forgets what it found the log at (publishing was turned off: the log may be gone when it is back on). */
    public void forget() {
        mirroredSnapshot = -1;
        mirroredSchema = -1;
        mirroredRetention = null;
    }

    private Outcome mirror(Table table, Duration fileRetention) {
        org.apache.iceberg.Snapshot current = table.currentSnapshot();
        if (current == null) {
            return Outcome.NOTHING_TO_MIRROR;
        }
        if (current.snapshotId() == mirroredSnapshot
                && current.schemaId() == mirroredSchema
                && fileRetention.equals(mirroredRetention)) {
            return Outcome.UP_TO_DATE;
        }
        if (!(table.io() instanceof ObjectStoreFileIO io)) {
            throw new IllegalStateException("the table's FileIO is not Floe's object store");
        }
        ObjectLocations locations = io.locations();
        Engine engine = DefaultEngine.create(new DeltaFileIO(io.store(), locations));
        String path = locations.location(locations.key(trimSlash(table.location())));
        org.apache.iceberg.Schema schema = table.schemas().getOrDefault(current.schemaId(), table.schema());
        for (int attempt = 1; ; attempt++) {
            try {
                return attempt(table, current, engine, path, schema, locations, fileRetention);
            } catch (ConcurrentWriteException | MaxCommitRetryLimitReachedException | TableAlreadyExistsException e) {
                // With Kernel's retries off, a version another writer put first ends as the retry limit.
                if (attempt == ATTEMPTS) {
                    throw e;
                }
                LOGGER.info(
                        "delta commit lost to another writer table={}: {}; planning again",
                        table.name(),
                        e.getMessage());
            }
        }
    }

    /** One plan and commit against the log as it is now; a lost race throws {@link ConcurrentWriteException}. */
    private Outcome attempt(
            Table table,
            org.apache.iceberg.Snapshot current,
            Engine engine,
            String path,
            org.apache.iceberg.Schema icebergSchema,
            ObjectLocations locations,
            Duration fileRetention) {
        // Iceberg tables of format 3 may have deletion vectors (upsert tables); Delta readers must apply them.
        boolean vectors = TableUtil.formatVersion(table) >= DELETION_VECTORS_FORMAT;
        Snapshot delta = loadOrCreate(table, engine, path, icebergSchema, vectors, fileRetention);
        StructType schema = DeltaSchemas.of(icebergSchema, delta.getSchema());
        long sequence = current.sequenceNumber();
        Optional<Long> mirrored = delta.getLatestTransactionVersion(engine, ICEBERG_TRANSACTION);
        boolean sameSchema = delta.getSchema().equals(schema);
        boolean enableVectors =
                vectors && !"true".equals(delta.getTableProperties().get(ENABLE_DELETION_VECTORS));
        Map<String, String> changedProperties = new HashMap<>();
        if (enableVectors) {
            changedProperties.put(ENABLE_DELETION_VECTORS, "true");
        }
        if (!fileRetention.equals(fileRetention(delta))) {
            changedProperties.put(DeltaRetention.DELETED_FILE_RETENTION, DeltaRetention.interval(fileRetention));
        }
        if (mirrored.isPresent() && mirrored.get() > sequence) {
            throw new IllegalStateException("the delta log holds Iceberg sequence number " + mirrored.get()
                    + ", ahead of the table's current " + sequence
                    + " (was the table created again at this location? remove its _delta_log to publish anew)");
        }
        if (mirrored.isPresent() && mirrored.get() == sequence && sameSchema && changedProperties.isEmpty()) {
            return Outcome.UP_TO_DATE;
        }

        UpdateTableTransactionBuilder builder =
                delta.buildUpdateTableTransaction(ENGINE_INFO, Operation.WRITE).withMaxRetries(0);
        if (mirrored.isEmpty() || mirrored.get() < sequence) {
            // Not when the log mirrors the snapshot already and only its properties change: Delta takes
            // each transaction version once.
            builder = builder.withTransactionId(ICEBERG_TRANSACTION, sequence);
        }
        if (!sameSchema) {
            builder = builder.withUpdatedSchema(schema);
        }
        if (!changedProperties.isEmpty()) {
            // Deletion vectors: readers must apply them from this version on; Kernel adds the table feature.
            builder = builder.withTablePropertiesAdded(changedProperties);
        }
        Transaction transaction = builder.build(engine);
        boolean dataChange = dataChange(table, current, mirrored);
        FileActions files = fileActions(
                engine,
                transaction,
                LiveFiles.delta(engine, delta, locations),
                LiveFiles.iceberg(table, current.snapshotId(), locations),
                new Stats(icebergSchema, schema, current.timestampMillis()),
                dataChange);
        long version = commit(engine, transaction, files.actions(), table);
        LOGGER.info(
                "delta log updated table={} version={} icebergSequence={} added={} removed={} dataChange={}",
                table.name(),
                version,
                sequence,
                files.added(),
                files.removed(),
                dataChange);
        return Outcome.COMMITTED;
    }

    /** The log's {@code delta.deletedFileRetentionDuration}, or null when it cannot be read. */
    private static Duration fileRetention(Snapshot delta) {
        try {
            return DeltaRetention.of(delta.getTableProperties()).deletedFiles();
        } catch (IllegalArgumentException unreadable) {
            return null; // set anew
        }
    }

    /** The latest snapshot of the Delta table at {@code path}, created first when there is none. */
    private static Snapshot loadOrCreate(
            Table table,
            Engine engine,
            String path,
            org.apache.iceberg.Schema icebergSchema,
            boolean vectors,
            Duration fileRetention) {
        try {
            return TableManager.loadSnapshot(path).build(engine);
        } catch (TableNotFoundException e) {
            Map<String, String> properties =
                    new HashMap<>(Map.of(COLUMN_MAPPING_MODE, "id", CHECKPOINT_INTERVAL_PROPERTY, CHECKPOINT_INTERVAL));
            if (vectors) {
                properties.put(ENABLE_DELETION_VECTORS, "true");
            }
            properties.put(DeltaRetention.DELETED_FILE_RETENTION, DeltaRetention.interval(fileRetention));
            Transaction create = TableManager.buildCreateTableTransaction(
                            path, DeltaSchemas.of(icebergSchema, null), ENGINE_INFO)
                    .withTableProperties(properties)
                    .withMaxRetries(0)
                    .build(engine);
            commit(engine, create, List.of(), table);
            LOGGER.info("delta table created table={} location={} deletionVectors={}", table.name(), path, vectors);
            return TableManager.loadSnapshot(path).build(engine);
        }
    }

    /** The schemas an {@code add}'s statistics are read and written by, and the time it is added at. */
    private record Stats(org.apache.iceberg.Schema iceberg, StructType delta, long addedAtMillis) {}

    /** The {@code remove} and {@code add} actions of a commit, and how many of each. */
    private record FileActions(List<Row> actions, int added, int removed) {}

    /**
     * The actions that take the Delta snapshot's live files to the Iceberg snapshot's: a file the Delta
     * snapshot has with another deletion vector than Iceberg's, or that Iceberg no longer has, is
     * removed (with the vector it had); one Iceberg has and Delta lacks with that vector is added.
     */
    private FileActions fileActions(
            Engine engine,
            Transaction transaction,
            Map<String, LiveFiles.DeltaFile> deltaFiles,
            Map<String, LiveFiles.IcebergFile> icebergFiles,
            Stats stats,
            boolean dataChange) {
        long now = clock.millis();
        List<Row> actions = new ArrayList<>();
        for (LiveFiles.DeltaFile file : deltaFiles.values()) {
            LiveFiles.IcebergFile wanted = icebergFiles.get(file.location());
            if (wanted == null || !wanted.vector().equals(file.vector())) {
                actions.add(KernelInternals.remove(file.scanFile(), dataChange, now));
            }
        }
        int removed = actions.size();
        List<DataFileStatus> appended = new ArrayList<>();
        for (Map.Entry<String, LiveFiles.IcebergFile> file : icebergFiles.entrySet()) {
            LiveFiles.DeltaFile live = deltaFiles.get(file.getKey());
            Optional<DeletionVector> vector = file.getValue().vector();
            if (live != null && live.vector().equals(vector)) {
                continue;
            }
            DataFile data = file.getValue().data();
            DataFileStatus status = new DataFileStatus(
                    file.getKey(),
                    data.fileSizeInBytes(),
                    stats.addedAtMillis(),
                    Optional.of(DeltaStats.of(data, stats.iceberg(), stats.delta(), vector.isPresent())));
            if (dataChange && vector.isEmpty()) {
                appended.add(status);
            } else {
                actions.add(KernelInternals.add(engine, transaction, status, dataChange, vector));
            }
        }
        actions.addAll(appendActions(engine, transaction, appended));
        return new FileActions(actions, actions.size() - removed, removed);
    }

    /** Kernel's own {@code add} actions for new files with all their rows, as a blind append writes them. */
    private static List<Row> appendActions(Engine engine, Transaction transaction, List<DataFileStatus> files) {
        List<Row> actions = new ArrayList<>();
        if (files.isEmpty()) {
            return actions;
        }
        Row state = transaction.getTransactionState(engine);
        try (CloseableIterator<Row> adds = Transaction.generateAppendActions(
                engine, state, iterator(files), Transaction.getWriteContext(engine, state, Map.of()))) {
            adds.forEachRemaining(actions::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return actions;
    }

    /** Commits and runs the post-commit hooks (the checkpoint); a failed hook is only logged. */
    private static long commit(Engine engine, Transaction transaction, List<Row> actions, Table table) {
        TransactionCommitResult result =
                transaction.commit(engine, CloseableIterable.inMemoryIterable(iterator(actions)));
        for (PostCommitHook hook : result.getPostCommitHooks()) {
            try {
                hook.threadSafeInvoke(engine);
            } catch (IOException | RuntimeException e) {
                LOGGER.warn(
                        "delta post-commit {} failed table={} version={}: {}; the next one tries again",
                        hook.getType(),
                        table.name(),
                        result.getVersion(),
                        e.toString());
            }
        }
        return result.getVersion();
    }

    /**
     * Whether the Iceberg snapshots since the mirrored one changed data: not when they all are
     * compactions ({@code replace}), whose files hold the same rows; yes when the mirrored one is not
     * among the ancestors any more.
     */
    private static boolean dataChange(Table table, org.apache.iceberg.Snapshot current, Optional<Long> mirrored) {
        if (mirrored.isEmpty()) {
            return true;
        }
        org.apache.iceberg.Snapshot snapshot = current;
        while (snapshot != null && snapshot.sequenceNumber() > mirrored.get()) {
            if (!DataOperations.REPLACE.equals(snapshot.operation())) {
                return true;
            }
            snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
        }
        return snapshot == null || snapshot.sequenceNumber() != mirrored.get();
    }

    private static <T> CloseableIterator<T> iterator(List<T> items) {
        java.util.Iterator<T> it = items.iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public T next() {
                return it.next();
            }

            @Override
            public void close() {}
        };
    }

    private static String trimSlash(String location) {
        return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    }
}
