package io.floe.benchmarks.e2e;

import java.nio.file.Path;
import java.util.OptionalLong;

/** A running system under test, reachable over the Kafka protocol on loopback. */
sealed interface Target permits KafkaBroker, FloeAgent {

    /** Name in the report: {@code kafka}, {@code floe}, or {@code kafka-b} in Floe's slot with --kafka-only. */
    String label();

    String bootstrapServers();

    /** Peak used heap sampled since the start; empty when no sample succeeded. */
    OptionalLong peakHeapBytes();

    /**
     * Forces a full GC in the system's JVM ({@link FullGc}, its class histogram written to {@code histogramFile}),
     * waits for it, then reads the used heap the same way the peak is sampled. Throws when either step fails.
     */
    long liveHeapBytes(Path histogramFile) throws Exception;

    /** Peak resident set size of the process tree; read before {@link #stop()}. */
    long peakRssBytes();

    /** The last lines of the system's log, for error messages. */
    String logTail(int lines);

    /** Stops the system (SIGTERM, then waits) and deletes nothing: the caller owns the directories. */
    void stop() throws InterruptedException;
}
