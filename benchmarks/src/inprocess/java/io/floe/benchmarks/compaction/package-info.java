/**
 * Compaction benchmark: what compaction costs and what it buys, with Floe in the benchmark's own JVM.
 *
 * <p>{@link io.floe.benchmarks.compaction.CompactionBenchmark} produces through an in-process agent with small
 * flushes (many small objects holding batches of every partition), reads everything back through the fetch
 * path, runs {@code SegmentCompaction} and {@code ObjectCleanup} rounds directly, reads everything again and
 * prints the bytes compaction read and wrote per byte ingested next to the read throughput of both layouts.
 * These sources build only with the {@code floe-inprocess} profile ({@code benchmarks/run-compaction.sh}), so
 * the end-to-end driver's classpath stays free of Floe. Nothing here is part of the build's pass/fail.
 */
package io.floe.benchmarks.compaction;
