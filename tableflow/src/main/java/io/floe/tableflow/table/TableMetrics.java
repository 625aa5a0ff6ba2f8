package io.floe.tableflow.table;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/** One table's meters, tagged with its topic. */
final class TableMetrics {

    private final Counter records;
    private final Counter deadLetters;
    private final Counter files;
    private final Counter commits;
    private final Counter commitConflicts;
    private final Counter unknownOutcomes;
    private final Counter failures;
    private final Counter skipped;
    private final AtomicLong lagRecords = new AtomicLong();
    private final AtomicLong lagMillis = new AtomicLong();
    private final AtomicLong stalled = new AtomicLong();

    TableMetrics(MeterRegistry meters, String topic) {
        this.records = Counter.builder("floe.tableflow.records")
                .tag("topic", topic)
                .description("Records materialized into the table")
                .register(meters);
        this.deadLetters = Counter.builder("floe.tableflow.dead.letters")
                .tag("topic", topic)
                .description("Records that did not fit the schema, written to the dead-letter table")
                .register(meters);
        this.files = Counter.builder("floe.tableflow.files")
                .tag("topic", topic)
                .description("Data files committed")
                .register(meters);
        this.commits = Counter.builder("floe.tableflow.commits")
                .tag("topic", topic)
                .description("Snapshots committed")
                .register(meters);
        this.commitConflicts = Counter.builder("floe.tableflow.commit.conflicts")
                .tag("topic", topic)
                .description("Commits rejected because the table changed meanwhile (another writer)")
                .register(meters);
        this.unknownOutcomes = Counter.builder("floe.tableflow.commit.unknown")
                .tag("topic", topic)
                .description("Commits whose outcome is unknown (their files are kept; the next round reads the table)")
                .register(meters);
        this.failures = Counter.builder("floe.tableflow.failures")
                .tag("topic", topic)
                .description("Rounds that failed")
                .register(meters);
        this.skipped = Counter.builder("floe.tableflow.skipped.records")
                .tag("topic", topic)
                .description("Records removed by retention before the table got them")
                .register(meters);
        Gauge.builder("floe.tableflow.stalled", stalled, AtomicLong::get)
                .tag("topic", topic)
                .description("1 while the table's rounds have failed for longer than the stall timeout (it no"
                        + " longer holds retention back), else 0")
                .register(meters);
        Gauge.builder("floe.tableflow.lag.records", lagRecords, AtomicLong::get)
                .tag("topic", topic)
                .description("Committed records not yet in the table")
                .register(meters);
        Gauge.builder("floe.tableflow.lag.seconds", lagMillis, value -> value.get() / 1000.0)
                .tag("topic", topic)
                .description("How long the table has been behind its topic")
                .register(meters);
    }

    void committed(long recordCount, long deadLetterCount, int fileCount) {
        records.increment(recordCount);
        deadLetters.increment(deadLetterCount);
        files.increment(fileCount);
        commits.increment();
    }

    void conflict() {
        commitConflicts.increment();
    }

    void unknownOutcome() {
        unknownOutcomes.increment();
    }

    void failed() {
        failures.increment();
    }

    void stalled(boolean isStalled) {
        stalled.set(isStalled ? 1 : 0);
    }

    void skippedByRetention(long count) {
        skipped.increment(count);
    }

    void behindFor(long millis) {
        lagMillis.set(millis);
    }

    void lag(long recordCount, long millis) {
        lagRecords.set(recordCount);
        lagMillis.set(millis);
    }
}
