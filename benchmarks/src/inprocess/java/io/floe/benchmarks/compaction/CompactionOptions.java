package io.floe.benchmarks.compaction;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Command-line options of {@link CompactionBenchmark}, validated.
 *
 * @param records records produced, in batches of {@code batchRecords}, round-robin over the partitions by batch
 * @param valueBytes size of each record's value (no key, no compression)
 * @param batchRecords records per produced batch
 * @param partitions partitions of the benchmark topic
 * @param flushInterval the agent's flush interval
 * @param flushBytes the agent flushes as soon as its buffer holds this many bytes: small flushes make many small
 *     objects, each holding batches of several partitions, as an agent under light load writes them
 * @param targetBytes size a compacted per-partition object grows to
 * @param smallObjectBytes objects below this size are compaction inputs
 * @param compactEveryRecords 0: compact once, after the last record; else also after every this many records
 *     produced, as the job running every interval while producers write (then no read of an uncompacted layout)
 * @param readPasses how many times each layout is read; the first pass of each warms up
 * @param markdownOut also write the report there
 * @param keepDir keep the temp directory (metadata and objects) after the run
 * @param commandLine the arguments as given, for the report
 */
record CompactionOptions(
        long records,
        int valueBytes,
        int batchRecords,
        int partitions,
        Duration flushInterval,
        long flushBytes,
        long targetBytes,
        long smallObjectBytes,
        long compactEveryRecords,
        int readPasses,
        Optional<Path> markdownOut,
        boolean keepDir,
        List<String> commandLine) {

    /** The topic default of max.message.bytes (Kafka's message.max.bytes): a produced batch must fit. */
    static final long BATCH_BYTES_MAX = 1_048_588;
    /**
     * Bytes a record of an uncompressed v2 batch takes besides its value, at most, when it has no key, no headers
     * and the batch's timestamp (as the benchmark produces them).
     */
    static final int RECORD_OVERHEAD_BYTES_MAX = 21;
    /** Bytes of a v2 batch header. */
    static final int BATCH_HEADER_BYTES = 61;
    /** The agent's default flush size; above it the producer's window could outgrow the agent's produce buffer. */
    static final long FLUSH_BYTES_MAX = 8L << 20;

    static final String USAGE = """
            Usage: CompactionBenchmark [options]
              --records N            records produced (default 2000000)
              --value-bytes B        bytes of each record's value; no key, no compression (default 100)
              --batch-records R      records per produced batch (default 100)
              --partitions P         partitions of the benchmark topic (default 6)
              --flush-interval-ms N  the agent's flush interval (default 20)
              --flush-bytes N        the agent flushes at this many buffered bytes (default 262144)
              --target-bytes N       compaction target size of an output object (default 67108864, 64 MiB)
              --small-object-bytes N objects below this are compaction inputs (default a quarter of --target-bytes,
                                     the agent's ratio: 16 MiB of 64 MiB)
              --compact-every-records N
                                     also compact after every N records produced, as the job does while producers
                                     write; measures the steady cost, skips the uncompacted reads (default 0: compact
                                     once, after the last record)
              --read-passes N        reads of each layout; the first of each warms up, the ratio compares the
                                     fastest of the others (default 3)
              --out FILE             also write the report as Markdown to FILE
              --keep-dir             keep the temp directory (SQLite metadata, objects) after the run
            """;

    /** Whether compaction also runs while records are produced. */
    boolean compactsWhileProducing() {
        return compactEveryRecords > 0;
    }

    /** Estimated bytes of one produced batch, an upper bound. */
    long batchBytesMax() {
        return BATCH_HEADER_BYTES + (long) batchRecords * (valueBytes + RECORD_OVERHEAD_BYTES_MAX);
    }

    static CompactionOptions parse(String[] args) {
        Builder b = new Builder();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--keep-dir" -> b.keepDir = true;
                case "--help", "-h" -> throw new IllegalArgumentException(USAGE);
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("option " + flag + " needs a value\n" + USAGE);
                    }
                    b.set(flag, args[++i]);
                }
            }
        }
        return b.build(List.of(args));
    }

    /** Mutable collector for {@link #parse}; validation happens once in {@link #build}. */
    private static final class Builder {
        long records = 2_000_000;
        long valueBytes = 100;
        long batchRecords = 100;
        long partitions = 6;
        long flushIntervalMs = 20;
        long flushBytes = 262_144;
        long targetBytes = 64L << 20;
        Long smallObjectBytes;
        long compactEveryRecords;
        long readPasses = 3;
        Path out;
        boolean keepDir;

        void set(String flag, String value) {
            switch (flag) {
                case "--records" -> records = positive(flag, value);
                case "--value-bytes" -> valueBytes = positive(flag, value);
                case "--batch-records" -> batchRecords = positive(flag, value);
                case "--partitions" -> partitions = positive(flag, value);
                case "--flush-interval-ms" -> flushIntervalMs = positive(flag, value);
                case "--flush-bytes" -> flushBytes = positive(flag, value);
                case "--target-bytes" -> targetBytes = positive(flag, value);
                case "--small-object-bytes" -> smallObjectBytes = positive(flag, value);
                case "--compact-every-records" -> compactEveryRecords = positive(flag, value);
                case "--read-passes" -> readPasses = positive(flag, value);
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + flag + "\n" + USAGE);
            }
        }

        CompactionOptions build(List<String> commandLine) {
            require(valueBytes <= BATCH_BYTES_MAX, "--value-bytes " + valueBytes + " exceeds " + BATCH_BYTES_MAX);
            require(batchRecords <= BATCH_BYTES_MAX, "--batch-records " + batchRecords + " exceeds " + BATCH_BYTES_MAX);
            require(partitions <= 10_000, "--partitions " + partitions + " exceeds 10000");
            require(readPasses <= 100, "--read-passes " + readPasses + " exceeds 100");
            require(flushBytes >= 1024 && flushBytes <= FLUSH_BYTES_MAX,
                    "--flush-bytes " + flushBytes + " is outside [1024, " + FLUSH_BYTES_MAX + "]");
            require(compactEveryRecords % batchRecords == 0 && compactEveryRecords < records,
                    "--compact-every-records " + compactEveryRecords + " must be a multiple of --batch-records "
                            + batchRecords + " and below --records " + records);
            long small = smallObjectBytes != null ? smallObjectBytes : Math.max(1, targetBytes / 4);
            require(small <= targetBytes,
                    "--small-object-bytes " + small + " exceeds --target-bytes " + targetBytes);
            CompactionOptions options = new CompactionOptions(records, (int) valueBytes, (int) batchRecords,
                    (int) partitions, Duration.ofMillis(flushIntervalMs), flushBytes, targetBytes, small,
                    compactEveryRecords, (int) readPasses, Optional.ofNullable(out), keepDir, commandLine);
            require(options.batchBytesMax() <= BATCH_BYTES_MAX, "a batch of " + batchRecords + " records of "
                    + valueBytes + " bytes takes up to " + options.batchBytesMax() + " bytes, over max.message.bytes "
                    + BATCH_BYTES_MAX + ": lower --batch-records");
            return options;
        }

        private static long positive(String flag, String value) {
            long v;
            try {
                v = Long.parseLong(value.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " " + value + " is not a whole number", e);
            }
            require(v > 0, flag + " " + value + " must be positive");
            return v;
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
