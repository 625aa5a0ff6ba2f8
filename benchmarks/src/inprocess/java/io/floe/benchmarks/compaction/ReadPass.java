package io.floe.benchmarks.compaction;

import java.util.List;

/**
 * One read of every partition from its log start to its high watermark.
 *
 * @param label which layout and which pass
 * @param wallNanos the whole pass, including the driver's decoding and checksumming of records
 * @param fetchNanos time spent waiting for FetchService's answers (one fetch at a time): the agent's share
 * @param fetchCpuNanos CPU time (user and system) of the agent's fetch threads meanwhile: what the agent's reads
 *     cost, hardly changed by other processes competing for the cores, unlike the times
 * @param fetches fetches sent
 * @param batchBytes bytes of record batches returned
 * @param records records read
 * @param objectGets object-store GET requests the agent made
 * @param objectGetBytes bytes those GETs returned
 * @param replans fetches planned again because an object had moved
 * @param digests per partition, in partition order
 */
record ReadPass(
        String label,
        long wallNanos,
        long fetchNanos,
        long fetchCpuNanos,
        long fetches,
        long batchBytes,
        long records,
        long objectGets,
        long objectGetBytes,
        long replans,
        List<PartitionDigest> digests) {

    /** Bytes of 2^20, as Kafka's perf tools count a MB. */
    static final double MB = 1024.0 * 1024.0;

    ReadPass {
        digests = List.copyOf(digests);
    }

    double fetchSeconds() {
        return fetchNanos / 1e9;
    }

    double fetchCpuSeconds() {
        return fetchCpuNanos / 1e9;
    }

    double wallSeconds() {
        return wallNanos / 1e9;
    }

    /** Batch bytes per second of time spent in FetchService. */
    double megabytesPerSecond() {
        return batchBytes / MB / fetchSeconds();
    }

    /** Records per second of time spent in FetchService. */
    double recordsPerSecond() {
        return records / fetchSeconds();
    }
}
