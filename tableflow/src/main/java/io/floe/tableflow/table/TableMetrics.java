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
        this.records = counter(meters, topic, "floe.tableflow.records", "Records materialized into the table");
        this.deadLetters = counter(
                meters,
                topic,
                "floe.tableflow.dead.letters",
                "Records that did not fit the schema, written to the dead-letter table");
        this.files = counter(meters, topic, "floe.tableflow.files", "Data files committed");
        this.commits = counter(meters, topic, "floe.tableflow.commits", "Snapshots committed");
        this.commitConflicts = counter(
                meters,
                topic,
                "floe.tableflow.commit.conflicts",
                "Commits rejected because the table changed meanwhile (another writer)");
        this.unknownOutcomes = counter(
                meters,
                topic,
                "floe.tableflow.commit.unknown",
                "Commits whose outcome is unknown (their files are kept; the next round reads the table)");
        this.failures = counter(meters, topic, "floe.tableflow.failures", "Rounds that failed");
        this.skipped = counter(
                meters,
                topic,
                "floe.tableflow.skipped.records",
                "Records removed by retention before the table got them");
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

    private static Counter counter(MeterRegistry meters, String topic, String name, String description) {
        return Counter.builder(name)
                .tag("topic", topic)
                .description(description)
                .register(meters);
    }
}
