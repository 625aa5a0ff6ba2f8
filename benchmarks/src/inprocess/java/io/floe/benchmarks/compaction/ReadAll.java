package io.floe.benchmarks.compaction;

import io.floe.agent.Agent;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.RecordChunk;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Reads every partition of the topic from its log start to its high watermark through the agent's
 * FetchService, as one consumer assigned all partitions: each fetch asks for every unfinished partition with
 * {@link #PARTITION_FETCH_BYTES} per partition and does not wait, and the next is sent when it is answered.
 * Records are decoded and checksummed between fetches ({@link PartitionDigest}).
 */
final class ReadAll {

    /** Kafka's default max.partition.fetch.bytes. */
    static final int PARTITION_FETCH_BYTES = 1 << 20;
    /** How the agent names its fetch threads ({@code FetchService}). */
    private static final String FETCH_THREAD_PREFIX = "floe-fetch-";

    private final Agent agent;
    private final Topic topic;
    private final MeterRegistry meters;

    ReadAll(Agent agent, Topic topic, MeterRegistry meters) {
        this.agent = agent;
        this.topic = topic;
        this.meters = meters;
    }

    ReadPass read(String label) {
        int partitions = topic.partitionCount();
        long[] next = new long[partitions];
        long[] end = new long[partitions];
        List<PartitionDigest.Builder> digests = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            LogOffsets offsets = agent.metadata().reads().offsets(new TopicPartition(topic.name(), p));
            next[p] = offsets.logStartOffset();
            end[p] = offsets.highWatermark();
            digests.add(new PartitionDigest.Builder());
        }
        StoreReads before = StoreReads.of(meters);
        long cpuBefore = fetchThreadsCpuNanos();
        long start = System.nanoTime();
        long fetchNanos = 0;
        long fetches = 0;
        long bytes = 0;
        List<PartitionQuery> queries;
        while (!(queries = unfinished(next, end)).isEmpty()) {
            FetchQuery query = new FetchQuery(queries, Duration.ZERO, 0, queries.size() * PARTITION_FETCH_BYTES);
            long sent = System.nanoTime();
            FetchResult result = agent.fetch().fetch(query).join();
            fetchNanos += System.nanoTime() - sent;
            fetches++;
            for (PartitionResult partition : result.partitions()) {
                bytes += consume(partition, next, digests);
            }
        }
        long wallNanos = System.nanoTime() - start;
        long fetchCpuNanos = fetchThreadsCpuNanos() - cpuBefore;
        StoreReads reads = StoreReads.of(meters).minus(before);
        List<PartitionDigest> done = digests.stream().map(PartitionDigest.Builder::build).toList();
        long records = done.stream().mapToLong(PartitionDigest::records).sum();
        return new ReadPass(label, wallNanos, fetchNanos, fetchCpuNanos, fetches, bytes, records, reads.gets(),
                reads.getBytes(), reads.replans(), done);
    }

    private List<PartitionQuery> unfinished(long[] next, long[] end) {
        List<PartitionQuery> queries = new ArrayList<>();
        for (int p = 0; p < next.length; p++) {
            if (next[p] < end[p]) {
                queries.add(new PartitionQuery(new TopicPartition(topic.name(), p), next[p], PARTITION_FETCH_BYTES));
            }
        }
        return queries;
    }

    /** The chunk's bytes; a range of an object file is read and released. */
    private static ByteBuffer bytes(RecordChunk chunk) {
        if (chunk instanceof RecordChunk.InMemory memory) {
            return memory.bytes().duplicate();
        }
        RecordChunk.InFile file = (RecordChunk.InFile) chunk;
        try {
            return file.file().read(file.position(), file.length());
        } finally {
            file.file().release();
        }
    }

    /** Digests the partition's records from its next offset on and moves the offset; returns the batch bytes. */
    private static long consume(PartitionResult result, long[] next, List<PartitionDigest.Builder> digests) {
        int p = result.topicPartition().partition();
        if (!(result instanceof PartitionResult.Data data)) {
            throw new IllegalStateException("fetch of " + result.topicPartition() + " at offset " + next[p]
                    + " failed: " + result);
        }
        long from = next[p];
        for (RecordChunk chunk : data.chunks()) {
            for (RecordBatch batch : MemoryRecords.readableRecords(bytes(chunk)).batches()) {
                for (Record record : batch) {
                    if (record.offset() >= next[p]) {
                        digests.get(p).add(record.offset(), record.value());
                    }
                }
                next[p] = Math.max(next[p], batch.nextOffset());
            }
        }
        if (next[p] == from) {
            throw new IllegalStateException("fetch of " + result.topicPartition() + " at offset " + from
                    + " returned no records below the high watermark " + data.offsets().highWatermark());
        }
        return data.sizeInBytes();
    }

    /**
     * CPU time so far of the agent's fetch threads ({@code floe-fetch-N}, a fixed pool that lives as long as the
     * agent), system time included: with the object store's pages mapped, much of a read is page faults.
     */
    private static long fetchThreadsCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(FETCH_THREAD_PREFIX)) {
                total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }

    /** The agent's object-store GETs and fetch replans so far, from its meters. */
    private record StoreReads(long gets, long getBytes, long replans) {

        static StoreReads of(MeterRegistry meters) {
            Timer gets = meters.find("floe.objectstore.requests").tag("kind", "GET").timer();
            Counter bytes = meters.find("floe.objectstore.bytes").tag("kind", "GET").counter();
            Counter replans = meters.find("floe.fetch.replans").counter();
            return new StoreReads(gets == null ? 0 : gets.count(), bytes == null ? 0 : (long) bytes.count(),
                    replans == null ? 0 : (long) replans.count());
        }

        StoreReads minus(StoreReads earlier) {
            return new StoreReads(gets - earlier.gets, getBytes - earlier.getBytes, replans - earlier.replans);
        }
    }
}
