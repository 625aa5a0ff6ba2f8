package io.floe.tableflow.changes.stream;

import io.floe.tableflow.changes.CommitOffsets;
import io.floe.tableflow.changes.Offsets;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one table's change topic, tagged by the table's topic: {@code
 * floe.tableflow.changes.stream.changes} published (counted when their transaction commits), {@code
 * .transactions{outcome=committed|aborted|fenced}}, {@code .failures{reason}}, {@code .snapshots}
 * (initial snapshots completed), {@code .snapshot.restarts} (snapshots started over because the one being
 * read was expired), {@code .lag.commits} and {@code .lag.offsets} (how far the topic is behind the table),
 * {@code .halted} (1 while a range the topic needs can no longer be answered), {@code .progress.recovered}
 * (progresses read back from the change topic because the group had none), {@code .stalled.seconds}
 * (how long the stream has been behind without publishing) and {@code .hold.released} (retention holds
 * given up after that lasted too long).
 */
final class StreamMetrics {

    private static final String PREFIX = "floe.tableflow.changes.stream.";

    private final MeterRegistry meters;
    private final Tags tags;
    private final AtomicLong lagCommits = new AtomicLong();
    private final AtomicLong lagOffsets = new AtomicLong();
    private final AtomicLong halted = new AtomicLong();
    private final AtomicLong stalledSeconds = new AtomicLong();

    StreamMetrics(MeterRegistry meters, String topic) {
        this.meters = meters;
        this.tags = Tags.of("topic", topic);
        meters.gauge(PREFIX + "lag.commits", tags, lagCommits);
        meters.gauge(PREFIX + "lag.offsets", tags, lagOffsets);
        meters.gauge(PREFIX + "halted", tags, halted);
        meters.gauge(PREFIX + "stalled.seconds", tags, stalledSeconds);
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

    void snapshotRestarted() {
        meters.counter(PREFIX + "snapshot.restarts", tags).increment();
    }

    /** How far {@code at} is behind the table's {@code commits}, whose last holds it up to {@code current}. */
    void lag(List<CommitOffsets> commits, Offsets at, Offsets current) {
        long behind = commits.stream()
                .map(CommitOffsets::watermark)
                .distinct()
                .filter(watermark -> !watermark.atMost(at))
                .count();
        long offsets = 0;
        for (var entry : current.next().entrySet()) {
            offsets += Math.max(0, entry.getValue() - at.get(entry.getKey()));
        }
        lagCommits.set(behind);
        lagOffsets.set(offsets);
    }

    void halted(boolean now) {
        halted.set(now ? 1 : 0);
    }

    void stalled(long seconds) {
        stalledSeconds.set(seconds);
    }

    void progressRecovered() {
        meters.counter(PREFIX + "progress.recovered", tags).increment();
    }

    void holdReleased() {
        meters.counter(PREFIX + "hold.released", tags).increment();
    }
}
