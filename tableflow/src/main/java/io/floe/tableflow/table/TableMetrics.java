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
    private final AtomicLong indexKeys = new AtomicLong();
    private final Counter indexBuilds;
    private final Counter lookups;
    private final Counter lookupFilesRead;

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
        this.indexBuilds = counter(
                meters,
                topic,
                "floe.tableflow.upsert.index.builds",
                "Times an upsert table's key index was built by reading the whole table's keys (after a restart,"
                        + " a compaction, a commit of unknown outcome)");
        this.lookups = counter(
                meters,
                topic,
                "floe.tableflow.upsert.lookups",
                "Rounds of an upsert table over its key index bound that looked their keys up in its files");
        this.lookupFilesRead = counter(
                meters,
                topic,
                "floe.tableflow.upsert.lookup.files.read",
                "Data files whose key column the lookups read (those that key bounds and Bloom filters did not rule"
                        + " out)");
        Gauge.builder("floe.tableflow.upsert.index.keys", indexKeys, AtomicLong::get)
                .tag("topic", topic)
                .description("Keys an upsert table's in-memory key index holds (0 while its rounds look keys up)")
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

    void indexBuilt() {
        indexBuilds.increment();
    }

    void indexKeys(long keys) {
        indexKeys.set(keys);
    }

    void lookedUp(int filesRead) {
        lookups.increment();
        lookupFilesRead.increment(filesRead);
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
