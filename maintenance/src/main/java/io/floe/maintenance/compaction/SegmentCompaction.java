package io.floe.maintenance.compaction;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.metadata.StoredObject;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectKeys;
import io.floe.core.object.ObjectStore;
import io.floe.core.record.StoredBatch;
import io.floe.core.segment.SegmentBatch;
import io.floe.core.segment.SegmentReader;
import io.floe.core.segment.SegmentWriter;
import io.floe.maintenance.Job;
import io.floe.maintenance.MaintenanceConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compaction round: picks the oldest small objects (up to the run's byte budget), reads them
 * whole, and for each partition writes its batches, in offset order, into new objects of at most the
 * target size; each output is registered before its upload and swapped in by one conditional
 * transaction ({@link ObjectLifecycle#rewrite}). Inputs whose batches have all moved are scheduled for
 * deletion after the delete delay by that same transaction; a swap that finds the rows changed
 * applies nothing, and the sweep later removes its output.
 *
 * <p>Batch bytes are copied unchanged (their CRCs are checked on the way), so offsets, timestamps
 * and producer fields of every record stay what they were.
 */
public final class SegmentCompaction implements Job {

    public static final String NAME = "segment-compaction";
    private static final Logger LOGGER = LoggerFactory.getLogger(SegmentCompaction.class);
    private static final int CANDIDATES_MAX = 10_000;

    private final MaintenanceConfig config;
    private final ObjectLifecycle metadata;
    private final LogAppends appends;
    private final ObjectStore objects;
    private final ObjectKeys keys;
    private final String owner;
    private final Clock clock;
    private final Counter bytesRead;
    private final Counter bytesWritten;
    private final Counter rewritten;
    private final Counter rejected;
    private final Counter unknown;
    private final Counter released;
    private final Counter failures;

    public SegmentCompaction(
            MaintenanceConfig config,
            LogAppends appends,
            ObjectLifecycle metadata,
            ObjectStore objects,
            String owner,
            Clock clock,
            MeterRegistry meters) {
        this.config = config;
        this.metadata = metadata;
        this.appends = appends;
        this.objects = objects;
        this.owner = owner;
        this.clock = clock;
        this.keys = new ObjectKeys(clock, owner + "-compaction");
        this.bytesRead = Counter.builder("floe.compaction.bytes.read")
                .baseUnit("bytes")
                .description("Bytes of input objects read by compaction")
                .register(meters);
        this.bytesWritten = Counter.builder("floe.compaction.bytes.written")
                .baseUnit("bytes")
                .description("Bytes of compacted objects written")
                .register(meters);
        this.rewritten = outcome(meters, "rewritten");
        this.rejected = outcome(meters, "rejected");
        this.unknown = outcome(meters, "unknown");
        this.released = Counter.builder("floe.compaction.inputs.released")
                .description("Input objects whose last batch compaction moved")
                .register(meters);
        this.failures = Counter.builder("floe.compaction.failures")
                .description("Outputs compaction gave up in a round (logged; the round goes on)")
                .register(meters);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String run(Instant now) {
        List<StoredObject> inputs = pickInputs(now);
        if (inputs.size() < 2) {
            return "";
        }
        // Plan from the batch rows first: a round whose candidates are single-partition objects that
        // cannot grow by merging reads nothing at all.
        List<ObjectKey> candidates = inputs.stream().map(StoredObject::key).toList();
        List<List<BatchCoordinate>> chunks =
                CompactionPlan.chunks(metadata.batchesIn(candidates), config.compactionTargetBytes());
        if (chunks.isEmpty()) {
            return "";
        }
        Map<ObjectKey, InputObject> read = new HashMap<>();
        for (List<BatchCoordinate> chunk : chunks) {
            for (BatchCoordinate batch : chunk) {
                read.computeIfAbsent(batch.object(), key -> {
                    InputObject input = InputObject.read(objects, key);
                    bytesRead.increment(input.bytes().remaining());
                    return input;
                });
            }
        }
        int outputs = 0;
        int moved = 0;
        int failed = 0;
        for (List<BatchCoordinate> chunk : chunks) {
            try {
                moved += writeAndSwap(chunk, read, now);
                outputs++;
            } catch (RuntimeException e) {
                // One chunk that cannot be written (a corrupt batch, a failed upload) must not stop the
                // round's other partitions; its registration, if any, is the sweep's.
                failed++;
                failures.increment();
                LOGGER.warn(
                        "compaction of a chunk failed topic={} partition={} batches={}: {}",
                        chunk.get(0).topicPartition().topic(),
                        chunk.get(0).topicPartition().partition(),
                        chunk.size(),
                        e.toString(),
                        e);
            }
        }
        return "inputs=" + read.size() + " outputs=" + outputs + " batchesMoved=" + moved
                + (failed == 0 ? "" : " failed=" + failed);
    }

    private List<StoredObject> pickInputs(Instant now) {
        List<StoredObject> candidates = metadata.smallObjects(
                config.compactionSmallObjectBytes(), now.minus(config.compactionMinAge()), CANDIDATES_MAX);
        List<StoredObject> picked = new ArrayList<>();
        long bytes = 0;
        for (StoredObject candidate : candidates) {
            if (!picked.isEmpty() && bytes + candidate.sizeBytes() > config.compactionRunBytesMax()) {
                break;
            }
            picked.add(candidate);
            bytes += candidate.sizeBytes();
        }
        return picked;
    }

    /** Writes one output object for the chunk and swaps it in; returns how many batches moved. */
    private int writeAndSwap(List<BatchCoordinate> chunk, Map<ObjectKey, InputObject> inputs, Instant now) {
        SegmentWriter writer = new SegmentWriter();
        List<ObjectRewrite.Move> moves = new ArrayList<>(chunk.size());
        for (BatchCoordinate batch : chunk) {
            InputObject input = inputs.get(batch.object());
            SegmentBatch entry = input.entryAt(batch.range());
            ByteBuffer bytes = input.batchBytes(batch.range());
            if (!StoredBatch.isIntact(bytes)) {
                throw new IllegalStateException("batch at offset " + batch.baseOffset() + " of "
                        + batch.topicPartition() + " in " + batch.object() + " " + batch.range()
                        + " failed its CRC check; compaction leaves that object alone");
            }
            ByteRange to = writer.append(
                    entry.topicId(),
                    entry.partition(),
                    entry.recordCount(),
                    entry.producerId(),
                    entry.producerEpoch(),
                    entry.baseSequence(),
                    entry.maxTimestamp(),
                    bytes);
            moves.add(new ObjectRewrite.Move(batch, to));
        }
        ByteBuffer object = writer.finish();
        ObjectKey output = keys.next();
        // Registered at its creation, not at the round's start: the sweep expires a registration older
        // than the orphan grace, and a long round's later outputs would otherwise go before their swap.
        appends.registerUpload(output, owner, clock.instant());
        int size = object.remaining();
        objects.put(output, object);
        bytesWritten.increment(size);
        RewriteOutcome outcome =
                metadata.rewrite(new ObjectRewrite(output, size, moves), now.plus(config.objectDeleteDelay()));
        if (outcome instanceof RewriteOutcome.Rewritten done) {
            rewritten.increment();
            released.increment(done.released().size());
            LOGGER.debug(
                    "compacted output={} partition={} batches={} bytes={} released={}",
                    output,
                    chunk.get(0).topicPartition(),
                    moves.size(),
                    size,
                    done.released());
            return moves.size();
        }
        if (outcome instanceof RewriteOutcome.Rejected no) {
            rejected.increment();
            LOGGER.info(
                    "compaction swap rejected output={} partition={} reason={}",
                    output,
                    chunk.get(0).topicPartition(),
                    no.reason());
        } else if (outcome instanceof RewriteOutcome.Unknown maybe) {
            unknown.increment();
            LOGGER.warn(
                    "compaction swap outcome unknown output={} partition={}",
                    output,
                    chunk.get(0).topicPartition(),
                    maybe.cause());
        }
        return 0;
    }

    private static Counter outcome(MeterRegistry meters, String outcome) {
        return Counter.builder("floe.compaction.swaps")
                .tag("outcome", outcome)
                .description("Compaction swaps by outcome")
                .register(meters);
    }

    /** An input object read whole, with its footer's entries by position. */
    private record InputObject(ObjectKey key, ByteBuffer bytes, Map<Long, SegmentBatch> entries) {

        static InputObject read(ObjectStore objects, ObjectKey key) {
            ByteBuffer bytes = objects.get(key);
            Map<Long, SegmentBatch> entries = new HashMap<>();
            for (SegmentBatch entry : SegmentReader.readFooter(bytes).batches()) {
                entries.put(entry.range().position(), entry);
            }
            return new InputObject(key, bytes, entries);
        }

        SegmentBatch entryAt(ByteRange range) {
            SegmentBatch entry = entries.get(range.position());
            if (entry == null || entry.range().length() != range.length()) {
                throw new IllegalStateException("object " + key + " has no footer entry for batch range " + range);
            }
            return entry;
        }

        ByteBuffer batchBytes(ByteRange range) {
            return bytes.slice(Math.toIntExact(range.position()), range.length());
        }
    }
}
