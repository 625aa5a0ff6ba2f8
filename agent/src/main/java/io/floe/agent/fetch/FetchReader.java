package io.floe.agent.fetch;

import io.floe.agent.cache.ObjectCache;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.RecordChunk;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalFiles;
import io.floe.core.object.ObjectFileRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.core.record.MarkerBatch;
import io.floe.core.record.StoredBatch;
import io.floe.core.topic.UnknownTopicException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans and performs the reads of one fetch: picks the entries within the byte limits (below the last
 * stable offset for a read-committed fetch), groups a partition's neighbouring batches of one object
 * into runs, makes the bytes of transaction markers, serves runs from the cache or reads them
 * from the object store (neighbouring runs of one object merged into one read), and answers each
 * partition with its bytes.
 *
 * <p>Each served batch gets its offset patched in from its coordinate, in place: a committed batch's
 * offset never changes, so concurrent fetches write the same 8 bytes with the same value, and a
 * partition answered by one run costs no copy. The coordinate, never the cache, is the authority: a
 * commit whose outcome was unknown may have applied with offsets the agent never learned, and its
 * cached bytes then still carry the producer's. Cached bytes were validated on produce (or verified
 * when read); bytes read from the object store are CRC-checked before they are served or cached.
 *
 * <p>A fetch for the network ({@link FetchQuery#fromFiles()}) on a store that keeps objects as local
 * files does not read runs of big batches at all: each batch goes out as its patched offset from
 * memory and the rest straight from the file ({@code sendfile}), as Kafka serves its log segments;
 * the client checks those batches' CRCs. When the file already holds the assigned offsets (this
 * agent wrote them there after its commit, see {@link OffsetsInFiles}) a whole run goes out from the
 * file in one piece, whatever the size of its batches.
 */
final class FetchReader {

    private static final Logger LOGGER = LoggerFactory.getLogger(FetchReader.class);
    /** Runs whose batches average this many bytes or more are sent from the object's file, when it has one. */
    static final int FILE_MIN_AVERAGE_BATCH_BYTES = 16 * 1024;

    private final PartitionLogs logs;
    private final ObjectStore objects;
    private final OffsetsInFiles offsetsInFiles;
    private final ObjectCache cache;
    /** The store's local files that fetches for the network may send from; null when it keeps none. */
    private final LocalFiles files;

    private final Counter bytesFromCache;
    private final Counter bytesFromStore;
    private final Counter bytesFromFiles;
    private final Counter readsFromCache;
    private final Counter readsFromStore;
    private final Counter corruptBatches;
    private final Counter replans;

    FetchReader(
            PartitionLogs logs,
            ObjectStore objects,
            OffsetsInFiles offsetsInFiles,
            ObjectCache cache,
            MeterRegistry meters) {
        this.logs = logs;
        this.objects = objects;
        this.offsetsInFiles = offsetsInFiles;
        this.cache = cache;
        this.files = objects.localFiles().orElse(null);
        this.bytesFromCache =
                Counter.builder("floe.fetch.read.bytes").tag("source", "cache").register(meters);
        this.bytesFromStore = Counter.builder("floe.fetch.read.bytes")
                .tag("source", "object-store")
                .register(meters);
        // Sent from the local object store's files without being read (sendfile): never cached, never copied.
        this.bytesFromFiles = Counter.builder("floe.fetch.read.bytes")
                .tag("source", "object-file")
                .register(meters);
        // One count per run (a partition's back-to-back batches of one object), the unit the cache is asked for:
        // hits and misses of fetch reads alone, where floe.cache.requests also counts ListOffsets' lookups.
        this.readsFromCache = Counter.builder("floe.fetch.reads")
                .tag("source", "cache")
                .description("Runs of batches fetches served from the object cache")
                .register(meters);
        this.readsFromStore = Counter.builder("floe.fetch.reads")
                .tag("source", "object-store")
                .description("Runs of batches fetches had to read from the object store (cache misses)")
                .register(meters);
        this.corruptBatches = Counter.builder("floe.fetch.corrupt.batches")
                .description("Batches read from the object store that failed their CRC")
                .register(meters);
        this.replans = Counter.builder("floe.fetch.replans")
                .description("Fetches planned again because an object had moved (compaction, cleanup)")
                .register(meters);
    }

    /**
     * True when reading {@code query} asks nothing of a remote store: the metadata store is embedded,
     * objects are local files, and every partition is answered from its in-memory index. Such a fetch
     * reads only memory and local files, as Kafka serves its log segments.
     */
    boolean readsLocallyOnly(FetchQuery query) {
        if (files == null || !logs.embeddedStore()) {
            return false;
        }
        for (PartitionQuery partition : query.partitions()) {
            TopicPartition tp = partition.topicPartition();
            if (!logs.servesFromIndex(tp, partition.fetchOffset())) {
                return false;
            }
            if (query.readCommitted()
                    && (logs.stableOffsetsAskStore(tp) || logs.mayHaveAborts(tp, partition.fetchOffset()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when the fetch should be answered now: min_bytes reached (counting, for a read-committed
     * fetch, entries below the last stable offset only), or a partition has an error.
     */
    boolean satisfied(FetchQuery query) {
        long available = 0;
        for (PartitionQuery partition : query.partitions()) {
            LogOffsets offsets;
            try {
                offsets = offsets(query, partition.topicPartition());
            } catch (UnknownTopicException e) {
                return true;
            }
            if (!offsets.contains(partition.fetchOffset())) {
                return true;
            }
            long below = query.readCommitted() ? offsets.lastStableOffset() : Long.MAX_VALUE;
            long bytes = logs.log(partition.topicPartition()).bytesAvailable(partition.fetchOffset(), below);
            available += Math.min(bytes, partition.maxBytes());
            if (available >= Math.max(1, query.minBytes())) {
                return true;
            }
        }
        return false;
    }

    private LogOffsets offsets(FetchQuery query, TopicPartition topicPartition) {
        return query.readCommitted() ? logs.stableOffsets(topicPartition) : logs.offsets(topicPartition);
    }

    /**
     * Reads the fetch's answer. Blocks on object-store reads. An object that is gone was compacted or
     * cleaned up after this agent indexed its batches: the partitions that read it forget their
     * in-memory view and the fetch is planned once more from the metadata store, which points at
     * where the batches are now (a batch that is gone altogether is below the new log start).
     */
    FetchResult read(FetchQuery query) {
        Attempt first = attempt(query);
        if (first.missing().isEmpty()) {
            return first.result();
        }
        for (Planned planned : first.plan()) {
            for (Run run : planned.runs()) {
                if (first.missing().contains(run.object())) {
                    logs.forget(planned.partition().topicPartition());
                    break;
                }
            }
        }
        first.result().release();
        replans.increment();
        return attempt(query).result();
    }

    private record Attempt(List<Planned> plan, FetchResult result, Set<ObjectKey> missing) {}

    private Attempt attempt(FetchQuery query) {
        List<Planned> plan = plan(query);
        Map<ObjectKey, List<Run>> wanted = new LinkedHashMap<>();
        for (Planned planned : plan) {
            for (Run run : planned.runs()) {
                wanted.computeIfAbsent(run.object(), k -> new ArrayList<>()).add(run);
            }
        }
        Map<Run, Loaded> loaded = new HashMap<>();
        Map<ObjectKey, String> failures = new HashMap<>();
        Set<ObjectKey> missing = new HashSet<>();
        List<ObjectFileRange> opened = new ArrayList<>();
        try {
            boolean fromFiles = query.fromFiles() && files != null;
            wanted.forEach((key, runs) -> load(key, runs, fromFiles, loaded, opened, failures, missing));
            List<PartitionResult> results = new ArrayList<>(plan.size());
            for (Planned planned : plan) {
                results.add(planned.error() != null ? planned.error() : assemble(planned, loaded, failures));
            }
            return new Attempt(plan, new FetchResult(results), missing);
        } finally {
            // The chunks hold their own references to the files they send from.
            opened.forEach(ObjectFileRange::release);
        }
    }

    private List<Planned> plan(FetchQuery query) {
        List<Planned> plan = new ArrayList<>();
        long budget = Math.max(0, query.maxBytes());
        logs.checkRewrites(query.partitions());
        // Partitions read below their in-memory index get their store rows in one read for the whole fetch.
        Map<TopicPartition, StorePage> pages = logs.storePages(query.partitions(), budget);
        boolean anyData = false;
        for (PartitionQuery partition : query.partitions()) {
            long partitionBudget = Math.min(budget, partition.maxBytes());
            Planned planned = planPartition(
                    query,
                    partition,
                    anyData ? partitionBudget : Math.max(1, partitionBudget),
                    anyData,
                    pages.get(partition.topicPartition()));
            for (Part part : planned.parts()) {
                budget -= part.sizeInBytes();
            }
            anyData |= !planned.parts().isEmpty();
            plan.add(planned);
        }
        return plan;
    }

    private Planned planPartition(
            FetchQuery query, PartitionQuery partition, long bytesMax, boolean anyData, StorePage prefetched) {
        LogOffsets offsets;
        try {
            offsets = offsets(query, partition.topicPartition());
        } catch (UnknownTopicException e) {
            return Planned.error(new PartitionResult.Error(
                    partition.topicPartition(),
                    FetchError.UNKNOWN_TOPIC_OR_PARTITION,
                    LogOffsets.EMPTY,
                    e.getMessage()));
        }
        long fetchOffset = partition.fetchOffset();
        if (fetchOffset > offsets.highWatermark()) {
            // Past the end this agent knows: another agent may have committed since; the store decides.
            // (Its answer, not a reloaded view: a view another fetch loaded meanwhile may be older still.)
            LogOffsets stored = logs.storedOffsets(partition.topicPartition());
            if (stored.highWatermark() > offsets.highWatermark()) {
                offsets = stored;
            }
        }
        if (!offsets.contains(fetchOffset)) {
            return Planned.error(new PartitionResult.Error(
                    partition.topicPartition(),
                    FetchError.OFFSET_OUT_OF_RANGE,
                    offsets,
                    "fetch offset " + fetchOffset + " is outside [" + offsets.logStartOffset() + ", "
                            + offsets.highWatermark() + "] of " + partition.topicPartition()));
        }
        long end = query.readCommitted() ? offsets.lastStableOffset() : offsets.highWatermark();
        if (fetchOffset >= end || bytesMax <= 0) {
            return new Planned(partition, offsets, List.of(), List.of(), null);
        }
        List<LogEntry> entries = logs.entries(partition.topicPartition(), fetchOffset, bytesMax, prefetched);
        boolean gap = entries.isEmpty()
                ? fetchOffset < offsets.highWatermark()
                : entries.get(0).baseOffset() > fetchOffset;
        if (gap) {
            // Nothing stored where the fetch starts, although this agent's view says there is: key compaction
            // leaves such gaps, but so does retention when this agent's log start is stale (everything up to
            // the view's end may be gone). Below the stored log start the answer is OFFSET_OUT_OF_RANGE, as
            // in Kafka, so the consumer applies its reset policy instead of skipping records or waiting for
            // good.
            LogOffsets stored = logs.storedOffsets(partition.topicPartition());
            if (fetchOffset < stored.logStartOffset()) {
                return Planned.error(new PartitionResult.Error(
                        partition.topicPartition(),
                        FetchError.OFFSET_OUT_OF_RANGE,
                        stored,
                        "fetch offset " + fetchOffset + " is below the log start " + stored.logStartOffset() + " of "
                                + partition.topicPartition()));
            }
        }
        if (query.readCommitted()) {
            entries = below(entries, offsets.lastStableOffset());
        }
        // Past the first partition with data, an entry larger than what is left waits for the next fetch.
        if (anyData && !entries.isEmpty() && entries.get(0).sizeInBytes() > bytesMax) {
            entries = List.of();
        }
        List<AbortedTransaction> aborted = List.of();
        if (query.readCommitted() && !entries.isEmpty()) {
            try {
                aborted = logs.abortedTransactions(
                        partition.topicPartition(),
                        fetchOffset,
                        entries.get(entries.size() - 1).nextOffset());
            } catch (OffsetOutOfRangeException e) {
                // Retention passed the fetch offset after the entries were planned, and took the markers
                // below it along: which of the planned records were aborted is no longer known.
                return Planned.error(new PartitionResult.Error(
                        partition.topicPartition(),
                        FetchError.OFFSET_OUT_OF_RANGE,
                        logs.storedOffsets(partition.topicPartition()),
                        e.getMessage()));
            }
        }
        return new Planned(partition, offsets, parts(entries), aborted, null);
    }

    /** The leading entries that begin below {@code offset}. */
    private static List<LogEntry> below(List<LogEntry> entries, long offset) {
        int count = 0;
        while (count < entries.size() && entries.get(count).baseOffset() < offset) {
            count++;
        }
        return entries.subList(0, count);
    }

    /**
     * Consecutive batches lying back to back in one object become one run (one slice to serve); each
     * transaction marker is a part of its own, served from memory.
     */
    static List<Part> parts(List<LogEntry> entries) {
        List<Part> parts = new ArrayList<>();
        List<BatchCoordinate> current = new ArrayList<>();
        for (LogEntry entry : entries) {
            if (entry instanceof BatchCoordinate batch) {
                if (!current.isEmpty()) {
                    BatchCoordinate last = current.get(current.size() - 1);
                    if (!last.object().equals(batch.object())
                            || last.range().end() != batch.range().position()) {
                        parts.add(Run.of(current));
                        current = new ArrayList<>();
                    }
                }
                current.add(batch);
            } else {
                if (!current.isEmpty()) {
                    parts.add(Run.of(current));
                    current = new ArrayList<>();
                }
                parts.add(new Marker((TransactionMarker) entry));
            }
        }
        if (!current.isEmpty()) {
            parts.add(Run.of(current));
        }
        return parts;
    }

    /**
     * Fills {@code loaded} with each run of one object: its bytes from the cache, else (when the fetch
     * may send from files and the store keeps them) the object's file for runs of batches big enough
     * to be worth it, else its bytes read from the store.
     */
    private void load(
            ObjectKey key,
            List<Run> runs,
            boolean fromFiles,
            Map<Run, Loaded> loaded,
            List<ObjectFileRange> opened,
            Map<ObjectKey, String> failures,
            Set<ObjectKey> gone) {
        List<Run> missing = new ArrayList<>();
        for (Run run : runs) {
            cache.get(key, run.range())
                    .ifPresentOrElse(
                            bytes -> {
                                patch(run, bytes);
                                loaded.put(run, new Loaded.Bytes(bytes));
                                bytesFromCache.increment(run.range().length());
                                readsFromCache.increment();
                            },
                            () -> missing.add(run));
        }
        if (missing.isEmpty()) {
            return;
        }
        readsFromStore.increment(missing.size());
        try {
            List<Run> toRead = missing;
            if (fromFiles) {
                boolean offsetsInFile = offsetsInFiles.contains(key);
                List<Run> sendable = missing.stream()
                        .filter(run -> offsetsInFile || worthSendingFromFile(run))
                        .toList();
                if (!sendable.isEmpty()) {
                    openFiles(key, sendable, offsetsInFile, loaded, opened);
                    toRead = missing.stream()
                            .filter(run -> !loaded.containsKey(run))
                            .toList();
                }
            }
            read(key, toRead, loaded);
        } catch (ObjectNotFoundException e) {
            gone.add(key);
            failures.put(key, e.getMessage());
        } catch (ObjectStoreException | CorruptBatchException e) {
            LOGGER.warn("Fetch read failed object={} runs={}: {}", key, missing.size(), e.getMessage());
            failures.put(key, e.getMessage());
        }
    }

    /**
     * Batches this big or bigger go to the network straight from the object's file: the two writes
     * per batch (its patched offset, then the rest) cost less than reading its bytes. Smaller ones
     * are read.
     */
    static boolean worthSendingFromFile(Run run) {
        return run.range().length() / run.batches().size() >= FILE_MIN_AVERAGE_BATCH_BYTES;
    }

    /** Opens the runs' merged ranges of the object's file. */
    private void openFiles(
            ObjectKey key,
            List<Run> runs,
            boolean offsetsInFile,
            Map<Run, Loaded> loaded,
            List<ObjectFileRange> opened) {
        for (ByteRange merged : merge(ranges(runs))) {
            ObjectFileRange file = files.getFileRange(key, merged);
            opened.add(file);
            bytesFromFiles.increment(merged.length());
            for (Run run : runs) {
                if (within(run.range(), merged)) {
                    loaded.put(run, new Loaded.FromFile(file, offsetsInFile));
                }
            }
        }
    }

    /** Reads the runs' merged ranges from the store, checks their batches' CRCs and caches them. */
    private void read(ObjectKey key, List<Run> runs, Map<Run, Loaded> loaded) {
        for (ByteRange merged : merge(ranges(runs))) {
            ByteBuffer bytes = writable(objects.get(key, merged));
            bytesFromStore.increment(merged.length());
            for (Run run : runs) {
                if (within(run.range(), merged)) {
                    ByteBuffer slice = bytes.slice(
                            (int) (run.range().position() - merged.position()),
                            run.range().length());
                    verify(run, slice);
                    patch(run, slice);
                    loaded.put(run, new Loaded.Bytes(slice));
                }
            }
            cache.put(key, merged.position(), bytes);
        }
    }

    private static List<ByteRange> ranges(List<Run> runs) {
        List<ByteRange> ranges = new ArrayList<>(runs.size());
        runs.forEach(run -> ranges.add(run.range()));
        return ranges;
    }

    private static boolean within(ByteRange inner, ByteRange outer) {
        return inner.position() >= outer.position() && inner.end() <= outer.end();
    }

    private void verify(Run run, ByteBuffer runBytes) {
        for (BatchCoordinate batch : run.batches()) {
            if (!StoredBatch.isIntact(batchBytes(run, runBytes, batch))) {
                corruptBatches.increment();
                LOGGER.error(
                        "Corrupt batch topicPartition={} baseOffset={} object={} range={}",
                        batch.topicPartition(),
                        batch.baseOffset(),
                        batch.object(),
                        batch.range());
                throw new CorruptBatchException("batch at offset " + batch.baseOffset() + " of "
                        + batch.topicPartition() + " in " + batch.object() + " failed its CRC check");
            }
        }
    }

    /** Writes each batch's assigned offset into its base-offset field (outside the batch CRC). */
    private static void patch(Run run, ByteBuffer runBytes) {
        for (BatchCoordinate batch : run.batches()) {
            batchBytes(run, runBytes, batch).putLong(0, batch.baseOffset());
        }
    }

    private static ByteBuffer batchBytes(Run run, ByteBuffer runBytes, BatchCoordinate batch) {
        int offsetInRun = (int) (batch.range().position() - run.range().position());
        return runBytes.slice(offsetInRun, batch.range().length());
    }

    private static PartitionResult assemble(Planned planned, Map<Run, Loaded> loaded, Map<ObjectKey, String> failures) {
        for (Run run : planned.runs()) {
            String failure = failures.get(run.object());
            if (failure != null || !loaded.containsKey(run)) {
                return new PartitionResult.Error(
                        planned.partition().topicPartition(),
                        FetchError.STORAGE_ERROR,
                        planned.offsets(),
                        failure != null ? failure : "no bytes for " + run.object());
            }
        }
        List<RecordChunk> chunks = new ArrayList<>(planned.parts().size());
        for (Part part : planned.parts()) {
            if (part instanceof Marker marker) {
                chunks.add(new RecordChunk.InMemory(MarkerBatch.encode(marker.marker())));
                continue;
            }
            Run run = (Run) part;
            Loaded load = loaded.get(run);
            if (load instanceof Loaded.Bytes bytes) {
                chunks.add(new RecordChunk.InMemory(bytes.bytes().duplicate()));
            } else if (((Loaded.FromFile) load).offsetsInFile()) {
                // The file holds the assigned offsets: the whole run goes out as it lies in the file.
                chunks.add(new RecordChunk.InFile(
                        ((Loaded.FromFile) load).file().retain(),
                        run.range().position(),
                        run.range().length()));
            } else {
                ObjectFileRange file = ((Loaded.FromFile) load).file();
                for (BatchCoordinate batch : run.batches()) {
                    // The batch's offset goes out from memory, the rest of it from the file.
                    chunks.add(new RecordChunk.InMemory(
                            ByteBuffer.allocate(Long.BYTES).putLong(0, batch.baseOffset())));
                    chunks.add(new RecordChunk.InFile(
                            file.retain(),
                            batch.range().position() + Long.BYTES,
                            batch.range().length() - Long.BYTES));
                }
            }
        }
        return new PartitionResult.Data(
                planned.partition().topicPartition(), planned.offsets(), chunks, planned.abortedTransactions());
    }

    /** How a run's bytes were found: in memory (cache or read, offsets patched), or as a range of the object's file. */
    private sealed interface Loaded {
        record Bytes(ByteBuffer bytes) implements Loaded {}

        /** {@code offsetsInFile}: the file holds the batches' assigned offsets (see {@link OffsetsInFiles}). */
        record FromFile(ObjectFileRange file, boolean offsetsInFile) implements Loaded {}
    }

    private static ByteBuffer writable(ByteBuffer bytes) {
        if (!bytes.isReadOnly()) {
            return bytes;
        }
        ByteBuffer copy = ByteBuffer.allocate(bytes.remaining());
        copy.put(bytes.duplicate()).flip();
        return copy;
    }

    /** Sorted, with touching or overlapping ranges merged into one read. */
    static List<ByteRange> merge(List<ByteRange> ranges) {
        List<ByteRange> sorted = new ArrayList<>(ranges);
        sorted.sort((a, b) -> Long.compare(a.position(), b.position()));
        List<ByteRange> merged = new ArrayList<>();
        for (ByteRange range : sorted) {
            int last = merged.size() - 1;
            if (last >= 0 && merged.get(last).touchesOrOverlaps(range)) {
                merged.set(last, merged.get(last).span(range));
            } else {
                merged.add(range);
            }
        }
        return merged;
    }

    /** What a partition's answer is made of, in offset order: runs of batches and markers. */
    sealed interface Part permits Run, Marker {
        int sizeInBytes();
    }

    /** A transaction marker, whose control batch is made when it is served. */
    record Marker(TransactionMarker marker) implements Part {
        @Override
        public int sizeInBytes() {
            return marker.sizeInBytes();
        }
    }

    /** Batches of one partition lying back to back in one object. Identity matters: runs are map keys. */
    static final class Run implements Part {
        private final ObjectKey object;
        private final ByteRange range;
        private final List<BatchCoordinate> batches;

        private Run(ObjectKey object, ByteRange range, List<BatchCoordinate> batches) {
            this.object = object;
            this.range = range;
            this.batches = batches;
        }

        static Run of(List<BatchCoordinate> batches) {
            BatchCoordinate first = batches.get(0);
            BatchCoordinate last = batches.get(batches.size() - 1);
            long start = first.range().position();
            return new Run(
                    first.object(),
                    new ByteRange(start, Math.toIntExact(last.range().end() - start)),
                    List.copyOf(batches));
        }

        ObjectKey object() {
            return object;
        }

        ByteRange range() {
            return range;
        }

        List<BatchCoordinate> batches() {
            return batches;
        }

        @Override
        public int sizeInBytes() {
            return range.length();
        }
    }

    private static final class CorruptBatchException extends RuntimeException {
        CorruptBatchException(String message) {
            super(message);
        }
    }

    private record Planned(
            PartitionQuery partition,
            LogOffsets offsets,
            List<Part> parts,
            List<AbortedTransaction> abortedTransactions,
            PartitionResult.Error error) {

        static Planned error(PartitionResult.Error error) {
            return new Planned(null, null, List.of(), List.of(), error);
        }

        List<Run> runs() {
            List<Run> runs = new ArrayList<>(parts.size());
            for (Part part : parts) {
                if (part instanceof Run run) {
                    runs.add(run);
                }
            }
            return runs;
        }
    }
}
