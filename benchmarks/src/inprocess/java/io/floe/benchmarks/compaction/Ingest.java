package io.floe.benchmarks.compaction;

import io.floe.agent.Agent;
import io.floe.core.metadata.AppendResult;
import io.floe.core.topic.Topic;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Produces the workload through the agent's produce pipeline, one batch at a time in the order a single client
 * connection would send them, batch {@code i} to partition {@code i mod partitions}. Record {@code n}'s value
 * starts with {@code n} and continues with a pattern derived from it, so a record read back at another offset
 * changes the read's checksum.
 *
 * <p>At most {@link #inFlightBytesMax} bytes of appends await their commit: as many flushes as the agent uploads at
 * once, each of the flush size (plus a batch). Every flush then seals at its byte limit and objects come out about
 * the flush size, as from an agent under light load; a producer that kept more in flight would make the agent's
 * open flush grow past the limit while its upload slots are busy, and the objects with it.
 */
final class Ingest {

    private final Agent agent;
    private final Topic topic;
    private final CompactionOptions options;
    private final Clock clock;
    private final long inFlightBytesMax;
    private long producedBytes;

    Ingest(Agent agent, Topic topic, CompactionOptions options, Clock clock) {
        this.agent = agent;
        this.topic = topic;
        this.options = options;
        this.clock = clock;
        this.inFlightBytesMax = inFlightBytesMax(agent.config().flushesInFlightMax(), options);
    }

    /** The producer's window: {@code flushesInFlight} flushes of the flush size plus one batch each. */
    static long inFlightBytesMax(int flushesInFlight, CompactionOptions options) {
        return flushesInFlight * (options.flushBytes() + options.batchBytesMax());
    }

    long inFlightBytesMax() {
        return inFlightBytesMax;
    }

    /** Bytes of the batches produced so far. */
    long producedBytes() {
        return producedBytes;
    }

    /**
     * Produces records {@code [from, to)} and waits until all are committed. {@code from} is a multiple of the
     * batch size. Fails on any append not appended.
     */
    void produce(long from, long to) {
        ArrayDeque<InFlight> window = new ArrayDeque<>();
        long inFlightBytes = 0;
        for (long first = from; first < to; first += options.batchRecords()) {
            long batchIndex = first / options.batchRecords();
            int count = (int) Math.min(options.batchRecords(), to - first);
            ByteBuffer batch = batch(first, count, options.valueBytes(), clock.millis());
            int size = batch.remaining();
            while (!window.isEmpty() && inFlightBytes + size > inFlightBytesMax) {
                inFlightBytes -= window.removeFirst().await();
            }
            int partition = (int) (batchIndex % topic.partitionCount());
            window.addLast(new InFlight(batchIndex, partition, size, agent.produce().append(topic, partition, batch)));
            inFlightBytes += size;
            producedBytes += size;
        }
        while (!window.isEmpty()) {
            window.removeFirst().await();
        }
    }

    private static ByteBuffer batch(long first, int count, int valueBytes, long timestampMs) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(timestampMs, null, value(first + i, valueBytes));
        }
        return MemoryRecords.withRecords(Compression.NONE, records).buffer();
    }

    /** Record {@code n}'s value: {@code n} big-endian (its low bytes when fewer than 8 fit), then a pattern. */
    static byte[] value(long n, int valueBytes) {
        byte[] value = new byte[valueBytes];
        int numberBytes = Math.min(valueBytes, Long.BYTES);
        for (int i = 0; i < valueBytes; i++) {
            value[i] = i < numberBytes ? (byte) (n >>> (8 * (numberBytes - 1 - i))) : (byte) (n * 31 + i);
        }
        return value;
    }

    private record InFlight(long batchIndex, int partition, int bytes, CompletableFuture<AppendResult> result) {

        /** Waits for the commit; returns the batch's bytes. */
        int await() {
            AppendResult outcome = result.join();
            if (!(outcome instanceof AppendResult.Appended)) {
                throw new IllegalStateException("batch " + batchIndex + " to partition " + partition
                        + " was not appended: " + outcome);
            }
            return bytes;
        }
    }
}
