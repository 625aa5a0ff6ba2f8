package io.floe.benchmarks.e2e;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a consumer run read and how fast.
 *
 * <p>{@code fetchMegabytesPerSec} leaves out the time to join a consumer group ({@code groupJoinMs}), so it
 * compares with the assign()-based consumer, which joins nothing; {@code megabytesPerSec} includes it.
 */
record ConsumerSummary(
        long records,
        double megabytes,
        double megabytesPerSec,
        double recordsPerSec,
        long groupJoinMs,
        double fetchMegabytesPerSec,
        double fetchRecordsPerSec) {

    private static final String PERF_HEADER_START = "start.time,";
    private static final String ASSIGN_PREFIX = AssignConsumer.SUMMARY_PREFIX;

    /**
     * Parses {@code ConsumerPerformance} output: a header line
     * {@code start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms,
     * fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec} followed by one line of values.
     */
    static Optional<ConsumerSummary> parseConsumerPerformance(List<String> outputLines) {
        for (int i = 0; i + 1 < outputLines.size(); i++) {
            if (outputLines.get(i).strip().startsWith(PERF_HEADER_START)) {
                // The tool prints the header before it consumes: an error can come where the values should be.
                return zip(outputLines.get(i), outputLines.get(i + 1))
                        .map(row -> new ConsumerSummary(
                                Long.parseLong(row.get("data.consumed.in.nMsg")),
                                Double.parseDouble(row.get("data.consumed.in.MB")),
                                Double.parseDouble(row.get("MB.sec")),
                                Double.parseDouble(row.get("nMsg.sec")),
                                Long.parseLong(row.get("rebalance.time.ms")),
                                Double.parseDouble(row.get("fetch.MB.sec")),
                                Double.parseDouble(row.get("fetch.nMsg.sec"))));
            }
        }
        return Optional.empty();
    }

    /** Parses the line {@link AssignConsumer} prints: {@code assign-consumer records=N bytes=B elapsed.ms=T}. */
    static Optional<ConsumerSummary> parseAssignConsumer(List<String> outputLines) {
        return outputLines.stream()
                .map(String::strip)
                .filter(l -> l.startsWith(ASSIGN_PREFIX))
                .reduce((first, second) -> second)
                .map(ConsumerSummary::fromAssignLine);
    }

    private static ConsumerSummary fromAssignLine(String line) {
        Map<String, String> fields = new HashMap<>();
        for (String pair : line.substring(ASSIGN_PREFIX.length()).strip().split("\\s+")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        long records = Long.parseLong(fields.get("records"));
        double megabytes = Long.parseLong(fields.get("bytes")) / (1024.0 * 1024.0);
        double seconds = Math.max(1, Long.parseLong(fields.get("elapsed.ms"))) / 1000.0;
        return new ConsumerSummary(
                records, megabytes, megabytes / seconds, records / seconds, 0, megabytes / seconds, records / seconds);
    }

    /** Header names to values; empty when the line after the header is not a row of values. */
    private static Optional<Map<String, String>> zip(String header, String values) {
        String[] names = header.strip().split(",\\s*");
        String[] cells = values.strip().split(",\\s*");
        if (names.length != cells.length) {
            return Optional.empty();
        }
        Map<String, String> row = new HashMap<>();
        for (int i = 0; i < names.length; i++) {
            row.put(names[i], cells[i]);
        }
        return Optional.of(row);
    }
}
