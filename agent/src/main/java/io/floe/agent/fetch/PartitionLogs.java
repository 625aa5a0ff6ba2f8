package io.floe.agent.fetch;

import io.floe.agent.produce.CommittedObject;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.UnknownTopicException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory views of the partitions this agent serves, loaded from the metadata store on first
 * use and fed by this agent's own commits. Reads below a view's index go to the store.
 */
public final class PartitionLogs {

    static final int INDEX_BATCHES_MAX = 4096;
    /** Batch rows a read below the index asks the store for: at least, at first, at most. */
    private static final int STORE_PAGE_BATCHES_MIN = 4;
    private static final int STORE_PAGE_BATCHES_FIRST = 64;
    private static final int STORE_PAGE_BATCHES_MAX = 1000;

    private final MetadataStore store;
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();

    public PartitionLogs(MetadataStore store) {
        this.store = store;
    }

    /** The partition's view, loading its markers from the store the first time (blocks then). */
    PartitionLog log(TopicPartition topicPartition) throws UnknownTopicException {
        PartitionLog log = logs.get(topicPartition);
        if (log != null) {
            return log;
        }
        // Loading inside computeIfAbsent serializes it with onCommitted for the same partition, so a
        // commit landing while the markers load is either in the loaded markers or appended after.
        return logs.computeIfAbsent(topicPartition,
                tp -> new PartitionLog(tp, store.offsets(tp), INDEX_BATCHES_MAX));
    }

    /** The partition's markers. Blocks on the first call for a partition. */
    public LogOffsets offsets(TopicPartition topicPartition) throws UnknownTopicException {
        return log(topicPartition).offsets();
    }

    /**
     * Committed batches with {@code lastOffset >= fromOffset}, up to about {@code bytesMax}. Below the
     * in-memory index they come from the store (blocks), always afresh: compaction on any agent may
     * have moved them, retention removed them. The query asks for about the rows {@code bytesMax}
     * needs by the partition's batch sizes seen last, and more while that falls short.
     */
    List<BatchCoordinate> batches(TopicPartition topicPartition, long fromOffset, long bytesMax) {
        PartitionLog log = log(topicPartition);
        if (fromOffset >= log.indexStart()) {
            return log.batchesFrom(fromOffset, bytesMax);
        }
        long batchBytes = log.storedBatchBytes();
        int rows = batchBytes <= 0 ? STORE_PAGE_BATCHES_FIRST : pageRows(bytesMax / batchBytes + 2);
        while (true) {
            List<BatchCoordinate> stored = store.batches(topicPartition, fromOffset, rows);
            StorePage page = new StorePage(fromOffset, stored, stored.size() < rows);
            List<BatchCoordinate> answer = page.answer(fromOffset, bytesMax);
            if (answer != null || page.reachesEnd() || rows == STORE_PAGE_BATCHES_MAX) {
                if (!stored.isEmpty()) {
                    log.storedBatchBytes(page.averageBatchBytes());
                }
                // Without an answer, the page holds all there is, or fewer than bytesMax bytes: all of it is the answer.
                return answer != null ? answer : page.batches();
            }
            rows = pageRows(rows * 4L);
        }
    }

    private static int pageRows(long wanted) {
        return (int) Math.max(STORE_PAGE_BATCHES_MIN, Math.min(STORE_PAGE_BATCHES_MAX, wanted));
    }

    /** Records what this agent just committed. Called in commit order. */
    public void onCommitted(CommittedObject committed) {
        for (CommittedObject.Appended appended : committed.appended()) {
            logs.computeIfPresent(appended.batch().topicPartition(), (tp, log) -> {
                log.append(appended.batch(), appended.logStartOffset());
                return log;
            });
        }
    }

    /**
     * Forgets the partition's view: its indexed coordinates point at an object that is gone (its
     * batches were compacted into another). The next use loads the markers afresh and reads older
     * batches from the store.
     */
    void forget(TopicPartition topicPartition) {
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
        logs.computeIfPresent(topicPartition, (tp, log) -> isBehind(log.offsets(), stored) ? null : log);
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
        logs.computeIfPresent(topicPartition, (tp, log) -> log.advanceLogStart(logStartOffset) ? log : null);
    }

    /** Forgets every view of {@code topic} (deleted or re-created). */
    public void forgetTopic(String topic) {
        logs.keySet().removeIf(tp -> tp.topic().equals(topic));
    }
}
