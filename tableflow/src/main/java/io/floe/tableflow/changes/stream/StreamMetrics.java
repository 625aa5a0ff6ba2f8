package io.floe.tableflow.changes.stream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one table's change topic, tagged by the table's topic: {@code
 * floe.tableflow.changes.stream.changes} published (counted when their transaction commits), {@code
 * .transactions{outcome=committed|aborted|fenced}}, {@code .failures{reason}}, {@code .snapshots} (initial
 * snapshots published), {@code .lag.commits} and {@code .lag.offsets} (how far the topic is behind the
 * table), and {@code .halted} (1 while a range the topic needs can no longer be answered).
 */
final class StreamMetrics {

    private static final String PREFIX = "floe.tableflow.changes.stream.";

    private final MeterRegistry meters;
    private final Tags tags;
    private final AtomicLong lagCommits = new AtomicLong();
    private final AtomicLong lagOffsets = new AtomicLong();
    private final AtomicLong halted = new AtomicLong();

    StreamMetrics(MeterRegistry meters, String topic) {
        this.meters = meters;
        this.tags = Tags.of("topic", topic);
        meters.gauge(PREFIX + "lag.commits", tags, lagCommits);
        meters.gauge(PREFIX + "lag.offsets", tags, lagOffsets);
        meters.gauge(PREFIX + "halted", tags, halted);
    }

    void committed(long changes) {
        meters.counter(PREFIX + "changes", tags).increment(changes);
        transaction("committed");
    }

    void transaction(String outcome) {
        meters.counter(PREFIX + "transactions", tags.and("outcome", outcome)).increment();
    }

    void failed(String reason) {
        meters.counter(PREFIX + "failures", tags.and("reason", reason)).increment();
    }

    void snapshot() {
        meters.counter(PREFIX + "snapshots", tags).increment();
    }

    void lag(long commits, long offsets) {
        lagCommits.set(commits);
        lagOffsets.set(offsets);
    }

    void halted(boolean now) {
        halted.set(now ? 1 : 0);
    }
}
