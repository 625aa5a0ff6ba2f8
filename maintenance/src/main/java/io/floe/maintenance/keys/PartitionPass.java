package io.floe.maintenance.keys;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectKeys;
import io.floe.core.object.ObjectStore;
import io.floe.core.record.AbortedBatches;
import io.floe.core.record.DecompressionBuffers;
import io.floe.core.record.RecordIterator;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import io.floe.core.segment.SegmentWriter;
import io.floe.core.topic.Topic;
import io.floe.maintenance.keys.DirtyScan.DirtySection;
import io.floe.maintenance.keys.NewestPerKey.Outcome;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One key compaction pass over one partition, as Kafka's cleaner does it:
 * <ol>
 *   <li>map each key of the cleanable dirty batches to its newest offset;</li>
 *   <li>filter every batch from the log start up to the section's end with {@link NewestPerKey}, an
 *       object's run of batches at a time (at most the target size): a run where nothing changes and
 *       that is the whole of its object is left where it is; otherwise every batch of the run that keeps
 *       a record goes, changed or not, into the current output object (so the old object loses those
 *       references and can go), and batches left empty are removed;</li>
 *   <li>the batches just past the end that share an object with a moved run go along unchanged, so
 *       that object does not stay behind holding them alone;</li>
 *   <li>each output, when it reaches the target size, is registered, uploaded and swapped in with
 *       the removals gathered so far by one {@link ObjectLifecycle#rewrite} (compare-and-swap on every
 *       row it changes).</li>
 * </ol>
 * Offsets never change: filtering keeps each batch's first and last offset. The pass is complete when
 * every swap applied; only then may the partition's clean offset move up to the section's end.
 */
final class PartitionPass {

    private static final Logger LOGGER = LoggerFactory.getLogger(PartitionPass.class);
    private static final int PAGE_ROWS = 1000;
    private static final int REMOVALS_PER_SWAP_MAX = 1000;

    /** A batch that keeps records, waiting for its output. */
    private record Pending(BatchCoordinate from, ByteBuffer bytes, StoredBatch batch) {}

    /** What a pass did. */
    record Result(boolean complete, long tombstoneHorizonMs, long recordsRemoved, int swaps) {}

    private final Topic topic;
    private final TopicPartition tp;
    private final LogReads metadata;
    private final LogAppends appends;
    private final ObjectLifecycle lifecycle;
    private final ObjectStore objects;
    private final ObjectKeys keys;
    private final String owner;
    private final Clock clock;
    private final KeyOffsetMap newest;
    private final NewestPerKey filter;
    private final Instant now;
    private final Instant deleteAfter;
    private final long targetBytes;
    private final KeyCompactionMeters meters;
    private final DecompressionBuffers decompression = DecompressionBuffers.reused();
    private final List<Pending> chunk = new ArrayList<>();
    private final List<BatchCoordinate> removals = new ArrayList<>();
    private final Set<ObjectKey> movedFrom = new HashSet<>();
    private long chunkBytes;
    private long chunkRecordsRemoved;
    private boolean complete = true;
    private AbortedBatches aborted = AbortedBatches.of(List.of());
    private long bytesRead;
    private long recordsRemoved;
    private int swaps;

    PartitionPass(
            Topic topic, int partition, Context context, KeyOffsetMap newest, Instant now, long deleteRetentionMs) {
        this.topic = topic;
        this.tp = new TopicPartition(topic.name(), partition);
        this.metadata = context.reads();
        this.appends = context.appends();
        this.lifecycle = context.lifecycle();
        this.objects = context.objects();
        this.keys = context.keys();
        this.owner = context.owner();
        this.clock = context.clock();
        this.targetBytes = context.targetBytes();
        this.meters = context.meters();
        this.newest = newest;
        this.now = now;
        this.deleteAfter = now.plus(context.deleteDelay());
        this.filter = new NewestPerKey(
                newest, now.toEpochMilli(), Math.min(deleteRetentionMs, Long.MAX_VALUE / 2 - now.toEpochMilli()));
    }

    /** What every pass of one job shares. */
    record Context(
            LogReads reads,
            LogAppends appends,
            ObjectLifecycle lifecycle,
            ObjectStore objects,
            ObjectKeys keys,
            String owner,
            Clock clock,
            long targetBytes,
            Duration deleteDelay,
            KeyCompactionMeters meters) {}

    /** Cleans the batches from {@code logStart} up to {@code dirty.end()}. */
    Result run(long logStart, DirtySection dirty) {
        newest.clear();
        // Aborted records never count as a key's newest value, and go at this pass.
        aborted = AbortedBatches.of(metadata.abortedTransactions(tp, logStart, dirty.end()));
        filter.skip(aborted);
        mapKeys(dirty.cleanable());
        clean(logStart, dirty.end());
        swap();
        return new Result(complete, filter.tombstoneHorizonMs(), recordsRemoved, swaps);
    }

    private void mapKeys(List<BatchCoordinate> dirty) {
        for (List<BatchCoordinate> run : runsByObject(dirty)) {
            List<ByteBuffer> bytes = BatchReads.read(objects, run, this::read);
            for (ByteBuffer batchBytes : bytes) {
                StoredBatch batch = StoredBatch.of(batchBytes);
                if (batch.isControlBatch() || aborted.aborted(batch)) {
                    continue;
                }
                if (newest.size() + batch.lastOffset() - batch.baseOffset() + 1 > newest.capacity()) {
                    throw new IllegalStateException(
                            "key map of " + newest.capacity() + " keys cannot take the batch" + " at offset "
                                    + batch.baseOffset() + " of " + tp + "; the dirty scan should have stopped");
                }
                try (RecordIterator records = batch.streamRecords(decompression)) {
                    while (records.hasNext()) {
                        StoredRecord record = records.next();
                        if (record.hasKey()) {
                            newest.put(record.key(), record.offset());
                        }
                    }
                }
            }
        }
    }

    /**
     * Filters the batches starting in [from, end), an object's run at a time, in offset order; then
     * carries along the run just past the end when its object is one the pass moved batches out of.
     */
    private void clean(long from, long end) {
        List<BatchCoordinate> run = new ArrayList<>();
        long runBytes = 0;
        long next = from;
        List<BatchCoordinate> page;
        while (!(page = metadata.batches(tp, next, PAGE_ROWS)).isEmpty()) {
            for (BatchCoordinate row : page) {
                if (row.baseOffset() >= end) {
                    cleanRun(run);
                    carry(row);
                    return;
                }
                if (!run.isEmpty()
                        && (!row.object().equals(run.get(0).object())
                                || runBytes + row.range().length() > targetBytes)) {
                    cleanRun(run);
                    run = new ArrayList<>();
                    runBytes = 0;
                }
                run.add(row);
                runBytes += row.range().length();
                next = row.nextOffset();
            }
        }
        cleanRun(run);
    }

    /**
     * Moves, unchanged, the batches from {@code first} on that lie in the same object when the pass moved
     * that object's other batches: an object split by the cleanable end (its last batches are the log's
     * last batch, or newer than {@code min.compaction.lag.ms}) would otherwise stay, mostly dead, until a
     * later pass. Copying keeps every record, so the rules that keep those batches from being cleaned
     * hold; only batches in objects older than the minimum age get here, as the object was cleanable.
     */
    private void carry(BatchCoordinate first) {
        if (!movedFrom.contains(first.object())) {
            return;
        }
        List<BatchCoordinate> run = new ArrayList<>();
        long runBytes = 0;
        long next = first.baseOffset();
        List<BatchCoordinate> page;
        while (!(page = metadata.batches(tp, next, PAGE_ROWS)).isEmpty()) {
            for (BatchCoordinate row : page) {
                if (!row.object().equals(first.object())
                        || runBytes + row.range().length() > targetBytes) {
                    moveUnchanged(run);
                    return;
                }
                run.add(row);
                runBytes += row.range().length();
                next = row.nextOffset();
            }
        }
        moveUnchanged(run);
    }

    private void moveUnchanged(List<BatchCoordinate> run) {
        if (run.isEmpty()) {
            return;
        }
        List<ByteBuffer> bytes = BatchReads.read(objects, run, this::read);
        for (int i = 0; i < run.size(); i++) {
            keep(new Pending(run.get(i), bytes.get(i), StoredBatch.of(bytes.get(i))));
        }
    }

    private void cleanRun(List<BatchCoordinate> run) {
        if (run.isEmpty()) {
            return;
        }
        List<ByteBuffer> bytes = BatchReads.read(objects, run, this::read);
        List<Outcome> outcomes = new ArrayList<>(run.size());
        for (ByteBuffer batchBytes : bytes) {
            outcomes.add(filter.filter(batchBytes));
        }
        if (outcomes.stream().allMatch(Outcome.Unchanged.class::isInstance) && isWholeObject(run)) {
            return;
        }
        movedFrom.add(run.get(0).object());
        for (int i = 0; i < run.size(); i++) {
            Outcome outcome = outcomes.get(i);
            chunkRecordsRemoved += outcome.recordsRemoved();
            if (outcome instanceof Outcome.Removed) {
                removals.add(run.get(i));
                if (removals.size() >= REMOVALS_PER_SWAP_MAX) {
                    swap();
                }
            } else if (outcome instanceof Outcome.Rewritten rewritten) {
                keep(new Pending(run.get(i), rewritten.bytes(), rewritten.batch()));
            } else {
                keep(new Pending(run.get(i), bytes.get(i), StoredBatch.of(bytes.get(i))));
            }
        }
    }

    /**
     * True when the run's batches are all the object holds, back to back from its first batch position:
     * the object has no byte that is not live, and rewriting it would gain nothing. An unchanged run
     * that is only part of its object is moved all the same, so that the object (whose other batches an
     * earlier pass moved or removed, or which holds other partitions' batches too) does not stay pinned.
     */
    private boolean isWholeObject(List<BatchCoordinate> run) {
        long expected = SegmentWriter.FIRST_BATCH_POSITION;
        for (BatchCoordinate batch : run) {
            if (batch.range().position() != expected) {
                return false;
            }
            expected = batch.range().end();
        }
        return lifecycle.batchesIn(List.of(run.get(0).object())).size() == run.size();
    }

    private void keep(Pending pending) {
        int length = pending.bytes().remaining();
        if (!chunk.isEmpty() && chunkBytes + length > targetBytes) {
            swap();
        }
        chunk.add(pending);
        chunkBytes += length;
    }

    /** Writes the pending batches into an output (when there are any) and swaps it and the removals in. */
    private void swap() {
        if (chunk.isEmpty() && removals.isEmpty()) {
            return;
        }
        ObjectRewrite rewrite = chunk.isEmpty() ? ObjectRewrite.removing(removals) : upload();
        RewriteOutcome outcome = lifecycle.rewrite(rewrite, deleteAfter);
        if (outcome instanceof RewriteOutcome.Rewritten done) {
            meters.rewritten.increment();
            meters.released.increment(done.released().size());
            meters.recordsRemoved.increment(chunkRecordsRemoved);
            meters.batchesRemoved.increment(removals.size());
            recordsRemoved += chunkRecordsRemoved;
            swaps++;
            LOGGER.debug(
                    "key compaction swapped partition={} output={} kept={} removed={} released={}",
                    tp,
                    rewrite.output(),
                    chunk.size(),
                    removals.size(),
                    done.released());
        } else {
            complete = false;
            if (outcome instanceof RewriteOutcome.Rejected no) {
                meters.rejected.increment();
                LOGGER.info(
                        "key compaction swap rejected partition={} output={} reason={}",
                        tp,
                        rewrite.output(),
                        no.reason());
            } else if (outcome instanceof RewriteOutcome.Unknown maybe) {
                meters.unknown.increment();
                LOGGER.warn(
                        "key compaction swap outcome unknown partition={} output={}",
                        tp,
                        rewrite.output(),
                        maybe.cause());
            }
        }
        chunk.clear();
        removals.clear();
        chunkBytes = 0;
        chunkRecordsRemoved = 0;
    }

    private ObjectRewrite upload() {
        SegmentWriter writer = new SegmentWriter();
        List<ObjectRewrite.Move> moves = new ArrayList<>(chunk.size());
        for (Pending pending : chunk) {
            StoredBatch batch = pending.batch();
            Integer count = batch.countOrNull();
            ByteRange to = writer.append(
                    topic.id(),
                    tp.partition(),
                    count == null ? 0 : count,
                    batch.producerId(),
                    batch.producerEpoch(),
                    batch.baseSequence(),
                    batch.maxTimestamp(),
                    pending.bytes());
            moves.add(new ObjectRewrite.Move(pending.from(), to, batch.maxTimestamp()));
        }
        ByteBuffer object = writer.finish();
        ObjectKey output = keys.next();
        // Registered at its creation, not at the round's start: the sweep expires a registration older
        // than the orphan grace, and a long pass's later outputs would otherwise go before their swap.
        appends.registerUpload(output, owner, clock.instant());
        int size = object.remaining();
        objects.put(output, object);
        meters.bytesWritten.increment(size);
        return new ObjectRewrite(output, size, moves, List.copyOf(removals));
    }

    /** Bytes this pass has read from the object store so far (also when it failed). */
    long bytesRead() {
        return bytesRead;
    }

    private void read(long bytes) {
        bytesRead += bytes;
        meters.bytesRead.increment(bytes);
    }

    /** Consecutive batches in one object, each list at most the target size (a bigger batch alone). */
    private List<List<BatchCoordinate>> runsByObject(List<BatchCoordinate> batches) {
        List<List<BatchCoordinate>> runs = new ArrayList<>();
        List<BatchCoordinate> run = new ArrayList<>();
        long bytes = 0;
        for (BatchCoordinate batch : batches) {
            if (!run.isEmpty()
                    && (!batch.object().equals(run.get(0).object())
                            || bytes + batch.range().length() > targetBytes)) {
                runs.add(run);
                run = new ArrayList<>();
                bytes = 0;
            }
            run.add(batch);
            bytes += batch.range().length();
        }
        if (!run.isEmpty()) {
            runs.add(run);
        }
        return runs;
    }
}
