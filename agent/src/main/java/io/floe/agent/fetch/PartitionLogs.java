package io.floe.agent.fetch;

import io.floe.agent.produce.CommittedObject;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.UnknownTopicException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-memory views of the partitions this agent serves: loaded from the metadata store on first
 * use, or begun by this agent's first commit to the partition, and fed by its commits. Reads below a
 * view's index go to the store.
 *
 * <p>An index is only good while the batches it points at stay where they were committed. Before a
 * fetch serves from an index it reads the store's {@link io.floe.core.metadata.LogReads#logRewrites() log rewrites}
 * counter (one small read); once that moved (a compaction, key compaction, retention, deleted records
 * or a deleted topic, on any agent) every view is dropped and reloads on its next use.
 */
public final class PartitionLogs {

    private static final Logger LOGGER = LoggerFactory.getLogger(PartitionLogs.class);
    /** Batches all indexes hold together, about 130 bytes of heap each; many partitions get fewer each. */
    static final int INDEX_BATCHES_TOTAL = 256 * 1024;
    /** Batches one partition's index holds at most, and at least whatever the number of partitions. */
    static final int INDEX_BATCHES_MAX = 4096;

    static final int INDEX_BATCHES_MIN = 16;
    /** Batch rows a read below the index asks the store for: at least, at first, at most. */
    private static final int STORE_PAGE_BATCHES_MIN = 4;

    private static final int STORE_PAGE_BATCHES_FIRST = 64;
    private static final int STORE_PAGE_BATCHES_MAX = 1000;

    private final LogReads store;
    private final boolean embeddedStore;
    private final int indexBatchesTotal;
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    /**
     * Views dropped so far, counted before each drop: a view loaded from markers read before a drop may
     * miss what caused it (a commit whose outcome was unknown), so it is not kept (see {@link #log}).
     */
    private final AtomicLong drops = new AtomicLong();

    private volatile Consumer<Set<TopicPartition>> onAppended = partitions -> {};
    /** The store's log rewrites counter when the views were last known good; guarded by {@code this}. */
    private long logRewritesSeen;

    /** {@code embeddedStore}: whether the store is embedded in this process ({@link MetadataStore#embedded()}). */
    public PartitionLogs(LogReads store, boolean embeddedStore) {
        this(store, embeddedStore, INDEX_BATCHES_TOTAL);
    }

    /** Reads the store's log rewrites counter: no view exists yet, so none can be stale. */
    PartitionLogs(LogReads store, boolean embeddedStore, int indexBatchesTotal) {
        this.store = store;
        this.embeddedStore = embeddedStore;
        this.indexBatchesTotal = indexBatchesTotal;
        this.logRewritesSeen = store.logRewrites();
    }

    /**
     * The partition's view, loading its markers from the store when there is none (blocks then). The
     * store is read outside the map's lock, so a slow read never holds up a commit's update of another
     * partition. A view that a commit created meanwhile wins (it is exact as of that commit); a loaded
     * view is kept only when no view was dropped while it loaded, else it serves this call alone.
     */
    PartitionLog log(TopicPartition topicPartition) throws UnknownTopicException {
        PartitionLog log = logs.get(topicPartition);
        if (log != null) {
            return log;
        }
        long dropsBefore = drops.get();
        LogOffsets offsets = store.offsets(topicPartition);
        PartitionLog loaded = new PartitionLog(topicPartition, offsets);
        if (offsets.unstable()) {
            loaded.learn(offsets, openTransactions(topicPartition, offsets));
        }
        PartitionLog kept = logs.compute(
                topicPartition,
                (tp, existing) -> existing != null ? existing : drops.get() == dropsBefore ? loaded : null);
        return kept != null ? kept : loaded;
    }

    /**
     * The producers' open transactions as of {@code offsets} (first offset by producer id), or null when
     * the store cannot say: entries were appended between the reads, or the producers' transactions do
     * not make up {@code offsets}' last stable offset. Three reads in all, only for a log with an open
     * transaction.
     */
    private Map<Long, Long> openTransactions(TopicPartition topicPartition, LogOffsets offsets) {
        List<ActiveProducer> producers;
        LogOffsets after;
        try {
            producers = store.producers(topicPartition);
            after = store.offsets(topicPartition);
        } catch (RuntimeException e) {
            LOGGER.debug("cannot read the open transactions of {}: {}", topicPartition, e.toString());
            return null;
        }
        if (after.highWatermark() != offsets.highWatermark()) {
            return null;
        }
        Map<Long, Long> open = new HashMap<>();
        long stable = offsets.highWatermark();
        for (ActiveProducer producer : producers) {
            long first = producer.currentTxnStartOffset();
            if (first != ActiveProducer.NO_TRANSACTION && first < offsets.highWatermark()) {
                open.put(producer.producerId(), first);
                stable = Math.min(stable, first);
            }
        }
        return Math.max(offsets.logStartOffset(), stable) == offsets.lastStableOffset() ? open : null;
    }

    /** Whether the metadata store is embedded in this process (see {@link MetadataStore#embedded()}). */
    boolean embeddedStore() {
        return embeddedStore;
    }

    /**
     * Whether a fetch of the partition from {@code fetchOffset} is answered by its in-memory view
     * alone: the view exists and the offset lies within its index (or at its end). Never loads a view.
     */
    boolean servesFromIndex(TopicPartition topicPartition, long fetchOffset) {
        PartitionLog log = logs.get(topicPartition);
        if (log == null) {
            return false;
        }
        LogOffsets offsets = log.offsets();
        return fetchOffset >= log.indexStart()
                && fetchOffset >= offsets.logStartOffset()
                && fetchOffset <= offsets.highWatermark();
    }

    /** The partition's markers. Blocks on the first call for a partition. */
    public LogOffsets offsets(TopicPartition topicPartition) throws UnknownTopicException {
        return log(topicPartition).offsets();
    }

    /**
     * The partition's markers for a read-committed reader: as {@link #offsets}, but when the view's last
     * stable offset may lag the store's (the view does not know every open transaction, or other
     * agents may end them: a store that is not embedded), the store is asked. Never asks it for a log
     * with no open transaction the view knows of, or when the view knows them all on an embedded store.
     */
    public LogOffsets stableOffsets(TopicPartition topicPartition) throws UnknownTopicException {
        PartitionLog log = log(topicPartition);
        if (!mayLagStore(log)) {
            return log.offsets();
        }
        LogOffsets stored = storedOffsets(topicPartition);
        PartitionLog now = logs.get(topicPartition);
        if (now != log) {
            return log(topicPartition).offsets(); // dropped as behind the store: reloaded
        }
        boolean asOfView = stored.highWatermark() == log.offsets().highWatermark();
        log.learn(
                stored,
                stored.unstable() && asOfView && !log.knowsOpenTransactions()
                        ? openTransactions(topicPartition, stored)
                        : null);
        return log.offsets();
    }

    /** Whether {@link #stableOffsets} would ask the store for the partition (a view that does not exist would load). */
    boolean stableOffsetsAskStore(TopicPartition topicPartition) {
        PartitionLog log = logs.get(topicPartition);
        return log == null || mayLagStore(log);
    }

    private boolean mayLagStore(PartitionLog log) {
        LogOffsets offsets = log.offsets();
        return offsets.unstable() && (!log.knowsOpenTransactions() || !embeddedStore);
    }

    /**
     * The aborted transactions of the partition that meet {@code [fromOffset, toOffset)}, for a
     * read-committed answer below the last stable offset: from the store, unless the view saw every
     * entry from {@code fromOffset} on and no abort among them. Blocks then.
     */
    List<AbortedTransaction> abortedTransactions(TopicPartition topicPartition, long fromOffset, long toOffset) {
        if (!mayHaveAborts(topicPartition, fromOffset)) {
            return List.of();
        }
        return store.abortedTransactions(topicPartition, fromOffset, toOffset);
    }

    /** Whether {@link #abortedTransactions} would ask the store. */
    boolean mayHaveAborts(TopicPartition topicPartition, long fromOffset) {
        PartitionLog log = logs.get(topicPartition);
        return log == null || log.mayHaveAbortsFrom(fromOffset);
    }

    /**
     * Committed entries (batches and markers) with {@code lastOffset >= fromOffset}, up to about {@code bytesMax}. Below the
     * in-memory index they come from {@code prefetched} (rows this fetch already read, see
     * {@link #storePages}; may be null) when those suffice, else from the store (blocks), always
     * afresh: compaction on any agent may have moved them, retention removed them. The query asks for
     * about the rows {@code bytesMax} needs by the partition's batch sizes seen last, and more while
     * that falls short.
     */
    List<LogEntry> entries(TopicPartition topicPartition, long fromOffset, long bytesMax, StorePage prefetched) {
        PartitionLog log = log(topicPartition);
        if (fromOffset >= log.indexStart()) {
            return log.entriesFrom(fromOffset, bytesMax);
        }
        List<LogEntry> answer = prefetched == null ? null : prefetched.answer(fromOffset, bytesMax);
        int rows = pageRows(log, bytesMax);
        while (answer == null) {
            List<LogEntry> stored = store.entries(List.of(new BatchesQuery(topicPartition, fromOffset, rows)))
                    .get(0);
            StorePage page = page(log, stored, rows);
            answer = page.answer(fromOffset, bytesMax);
            if (answer == null && rows == STORE_PAGE_BATCHES_MAX) {
                return page.entries(); // the largest page holds fewer than bytesMax bytes: all of it is the answer
            }
            rows = pageRows(rows * 4L);
        }
        return answer;
    }

    /**
     * The store rows of the partitions whose fetch offsets lie below their in-memory index, read in
     * one go (one round trip, one snapshot), each sized as {@link #entries} would size it. Partitions
     * that need no rows, or whose views cannot load, are left out; so is everything when the store
     * fails (the partitions then ask one by one, and fail there).
     */
    Map<TopicPartition, StorePage> storePages(List<PartitionQuery> partitions, long fetchBytesMax) {
        List<BatchesQuery> queries = new ArrayList<>();
        List<PartitionLog> views = new ArrayList<>();
        for (PartitionQuery partition : partitions) {
            PartitionLog log;
            try {
                log = log(partition.topicPartition());
            } catch (RuntimeException e) {
                continue;
            }
            LogOffsets offsets = log.offsets();
            long from = partition.fetchOffset();
            if (from < log.indexStart() && from >= offsets.logStartOffset() && from < offsets.highWatermark()) {
                long bytesMax = Math.min(fetchBytesMax, partition.maxBytes());
                queries.add(new BatchesQuery(partition.topicPartition(), from, pageRows(log, bytesMax)));
                views.add(log);
            }
        }
        if (queries.isEmpty()) {
            return Map.of();
        }
        List<List<LogEntry>> answers;
        try {
            answers = store.entries(queries);
        } catch (RuntimeException e) {
            return Map.of();
        }
        Map<TopicPartition, StorePage> pages = new HashMap<>();
        for (int i = 0; i < queries.size(); i++) {
            BatchesQuery query = queries.get(i);
            pages.put(query.topicPartition(), page(views.get(i), answers.get(i), query.maxBatches()));
        }
        return pages;
    }

    /** The rows a query for {@code rows} returned, as a page; remembers their size for the next query. */
    private static StorePage page(PartitionLog log, List<LogEntry> stored, int rows) {
        StorePage page = new StorePage(stored, stored.size() < rows);
        if (!stored.isEmpty()) {
            log.storedBatchBytes(page.averageBatchBytes());
        }
        return page;
    }

    /** About the rows {@code bytesMax} needs by the partition's batch sizes seen last. */
    private static int pageRows(PartitionLog log, long bytesMax) {
        long batchBytes = log.storedBatchBytes();
        return batchBytes <= 0 ? STORE_PAGE_BATCHES_FIRST : pageRows(bytesMax / batchBytes + 2);
    }

    private static int pageRows(long wanted) {
        return (int) Math.max(STORE_PAGE_BATCHES_MIN, Math.min(STORE_PAGE_BATCHES_MAX, wanted));
    }

    /**
     * Records what this agent just committed. Called in commit order. A partition without a view gets
     * one that begins at its first batch here (as if loaded just before this commit): a consumer
     * reading what was just produced is served from memory, without asking the store.
     */
    public void onCommitted(CommittedObject committed) {
        int indexBatchesMax = indexBatchesMax();
        for (CommittedObject.Appended appended : committed.appended()) {
            BatchCoordinate batch = appended.batch();
            logs.compute(batch.topicPartition(), (tp, log) -> {
                PartitionLog view = log != null
                        ? log
                        : PartitionLog.begunAt(
                                tp, Math.min(appended.logStartOffset(), batch.baseOffset()), batch.baseOffset());
                view.append(batch, appended.logStartOffset(), indexBatchesMax, appended.transactionalProducerId());
                return view;
            });
        }
    }

    /**
     * Records transaction markers the store just wrote (in offset order per partition) and wakes the
     * fetches waiting on their partitions. A partition without a view gets none (its next use loads
     * it); a view behind the store takes the marker as an entry after a gap, as for commits.
     */
    public void onMarkers(List<TransactionMarker> markers) {
        int indexEntriesMax = indexBatchesMax();
        Set<TopicPartition> partitions = new HashSet<>();
        for (TransactionMarker marker : markers) {
            partitions.add(marker.topicPartition());
            logs.computeIfPresent(marker.topicPartition(), (tp, log) -> {
                log.append(marker, indexEntriesMax);
                return log;
            });
        }
        onAppended.accept(partitions);
    }

    /** Who to tell about partitions that {@link #onMarkers} moved (the fetch service wakes their fetches). */
    void onAppended(Consumer<Set<TopicPartition>> listener) {
        onAppended = listener;
    }

    /** Each view's share of the indexes' budget, within [{@link #INDEX_BATCHES_MIN}, {@link #INDEX_BATCHES_MAX}]. */
    private int indexBatchesMax() {
        int share = indexBatchesTotal / Math.max(1, logs.size());
        return Math.max(INDEX_BATCHES_MIN, Math.min(INDEX_BATCHES_MAX, share));
    }

    /** Entries (batches and markers) the in-memory indexes hold, over all partitions. */
    public long indexedBatches() {
        long batches = 0;
        for (PartitionLog log : logs.values()) {
            batches += log.indexedEntries();
        }
        return batches;
    }

    /**
     * Before a fetch of {@code partitions} serves from the indexes: when one of them would read indexed
     * batches, asks the store whether batches moved or went since the views were known good, and drops
     * every view if they did. When the store cannot answer, the views serve as they are: objects stay
     * readable for the cleanup grace period after their batches moved, and a fetch that finds one gone
     * plans again from the store.
     */
    void checkRewrites(List<PartitionQuery> partitions) {
        if (!readsIndex(partitions)) {
            return;
        }
        long rewrites;
        try {
            rewrites = store.logRewrites();
        } catch (RuntimeException e) {
            LOGGER.debug("cannot read the log rewrites counter, serving from the in-memory indexes: {}", e.toString());
            return;
        }
        synchronized (this) {
            if (rewrites > logRewritesSeen) {
                drops.incrementAndGet();
                logs.clear();
                logRewritesSeen = rewrites;
            }
        }
    }

    private boolean readsIndex(List<PartitionQuery> partitions) {
        for (PartitionQuery partition : partitions) {
            PartitionLog log = logs.get(partition.topicPartition());
            if (log != null
                    && partition.fetchOffset() >= log.indexStart()
                    && partition.fetchOffset() < log.offsets().highWatermark()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Forgets the partition's view: its indexed coordinates point at an object that is gone (its
     * batches were compacted into another). The next use loads the markers afresh and reads older
     * batches from the store.
     */
    void forget(TopicPartition topicPartition) {
        drops.incrementAndGet();
        logs.remove(topicPartition);
    }

    /**
     * Drops the partition's view when the store is ahead of it (another agent committed to the
     * partition, or moved its log start), so the next use loads it afresh. Returns whether it was.
     */
    boolean refresh(TopicPartition topicPartition) {
        PartitionLog log = logs.get(topicPartition);
        if (log == null) {
            return false;
        }
        LogOffsets seen = log.offsets();
        return isBehind(seen, storedOffsets(topicPartition));
    }

    /**
     * The partition's markers as the store has them now. A view behind them is dropped (atomically
     * with the comparison, so a view another thread loaded meanwhile is judged on its own markers) and
     * reloads on its next use.
     */
    LogOffsets storedOffsets(TopicPartition topicPartition) {
        LogOffsets stored = store.offsets(topicPartition);
        logs.computeIfPresent(topicPartition, (tp, log) -> isBehind(log.offsets(), stored) ? dropped() : log);
        return stored;
    }

    private static boolean isBehind(LogOffsets seen, LogOffsets stored) {
        return stored.highWatermark() > seen.highWatermark() || stored.logStartOffset() > seen.logStartOffset();
    }

    /**
     * Records that the store moved the partition's log start to {@code logStartOffset}; a view that
     * is behind the store (it has not seen offsets up to there) is dropped and reloads on next use.
     */
    void onLogStartMoved(TopicPartition topicPartition, long logStartOffset) {
        logs.computeIfPresent(topicPartition, (tp, log) -> log.advanceLogStart(logStartOffset) ? log : dropped());
    }

    /** Counts a drop about to happen inside a map update: the value that removes the view. */
    private PartitionLog dropped() {
        drops.incrementAndGet();
        return null;
    }

    /** Forgets every view: the store may hold entries that none of them has seen. */
    void forgetAll() {
        drops.incrementAndGet();
        logs.clear();
    }

    /** Forgets every view of {@code topic} (deleted or re-created). */
    public void forgetTopic(String topic) {
        drops.incrementAndGet();
        logs.keySet().removeIf(tp -> tp.topic().equals(topic));
    }
}
