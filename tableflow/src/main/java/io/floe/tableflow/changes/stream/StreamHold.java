package io.floe.tableflow.changes.stream;

import io.floe.core.metadata.LogRetention;
import io.floe.core.topic.Topic;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.config.TableMode;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An upsert table's change stream's retention hold on the source topic (holder {@value #HOLDER}, beside
 * the table's own at its watermark): the stream replays each range of the log after the table has
 * committed it, so retention must keep what the stream has not published yet. Written when the stream
 * has read its progress, before it replays anything, and moved up only after a transaction committed
 * (a failed move leaves it lower, which only keeps more); released when the stream goes (its table or
 * change topic turned off) or does not need the log (an append table's changes come from the table).
 *
 * <p>A stream that stays behind without publishing (it fails, or halts on a range it cannot answer)
 * would hold the log forever: after {@link ChangeStreamConfig#holdTimeout} of that, the hold is given up
 * (one ERROR line, {@code floe.tableflow.changes.stream.hold.released}), so retention goes on and the
 * stream halts if it later needs what retention removed; {@code .stalled.seconds} shows how long a
 * stream has been stuck. The next transaction that commits writes the hold again. Not thread-safe.
 */
final class StreamHold {

    static final String HOLDER = "tableflow-changes";
    private static final Logger LOGGER = LoggerFactory.getLogger(StreamHold.class);

    private final LogRetention retention;
    private final String topic;
    private final Duration timeout;
    private final StreamMetrics metrics;
    /** What this agent last wrote; null when unknown (another agent may have written or released it). */
    private Map<Integer, Long> held;

    private Instant stuckSince;
    /** The stream's position when it got stuck; null when unknown. */
    private Offsets stuckAt;

    private boolean gaveUp;

    StreamHold(LogRetention retention, String topic, Duration timeout, StreamMetrics metrics) {
        this.retention = retention;
        this.topic = topic;
        this.timeout = timeout;
        this.metrics = metrics;
    }

    /**
     * Holds the log at {@code needed}, before the stream reads it; throws when the hold cannot be written
     * (the stream must not replay what retention may remove meanwhile).
     */
    void before(Offsets needed) {
        write(needed.next());
    }

    /** Moves the hold up to {@code needed} after a transaction committed; a failure keeps it lower. */
    void after(Offsets needed) {
        try {
            write(needed.next());
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "cannot move the change stream's retention hold of topic={} to {}: {}",
                    topic,
                    needed,
                    e.toString());
        }
    }

    /** No hold: the stream does not replay the log, or is gone. */
    void release() {
        if (held != null && held.isEmpty()) {
            return;
        }
        retention.releaseRetention(HOLDER, topic);
        held = Map.of();
    }

    /**
     * Forgets what was written: another agent may hold the stream meanwhile. How long the stream has been
     * stuck is kept (a lease that lapses and comes back to this agent does not restart it); a position that
     * moved meanwhile restarts it ({@link #stuck}).
     */
    void forget() {
        held = null;
    }

    /** A turn left the stream caught up, or it committed: it is not stuck. */
    void moving() {
        stuckSince = null;
        stuckAt = null;
        gaveUp = false;
        metrics.stalled(0);
    }

    /**
     * A turn left the stream behind without committing, at {@code position} (null when it could not be
     * read): past the timeout, the hold is given up. A position other than the one the stream got stuck at
     * (another agent published meanwhile) starts the count again. Never throws (a failed release is
     * retried on the next turn).
     */
    void stuck(Instant now, Offsets position) {
        if (stuckSince == null || position != null && stuckAt != null && !position.equals(stuckAt)) {
            stuckSince = now;
            stuckAt = position;
            gaveUp = false;
        } else if (stuckAt == null) {
            stuckAt = position;
        }
        Duration stuckFor = Duration.between(stuckSince, now);
        metrics.stalled(stuckFor.toSeconds());
        if (gaveUp || stuckFor.compareTo(timeout) < 0) {
            return;
        }
        try {
            release();
            gaveUp = true;
            metrics.holdReleased();
            LOGGER.error(
                    "change topic of topic={} has published nothing for {} while behind its table: its retention"
                            + " hold is given up, and retention may now remove records it has still to publish"
                            + " (it halts if it needs them). Find why it is stuck (its earlier log lines,"
                            + " floe.tableflow.changes.stream.failures)",
                    topic,
                    stuckFor);
        } catch (RuntimeException e) {
            LOGGER.warn("cannot release the change stream's retention hold of topic={}: {}", topic, e.toString());
        }
    }

    /**
     * Where the stream's retention hold keeps the source topic: what it replays next; during an initial
     * snapshot, the snapshot's watermark, from which it goes on. Empty for an append table, whose changes
     * come from the table's files.
     */
    static Optional<Offsets> needed(Progress progress, Topic source, Table table) {
        if (TableCatalog.modeOf(table) == TableMode.APPEND) {
            return Optional.empty();
        }
        Set<Integer> partitions = new TreeSet<>();
        for (int partition = 0; partition < source.partitionCount(); partition++) {
            partitions.add(partition);
        }
        Offsets position = progress.reading().isPresent()
                ? SnapshotSteps.watermark(table, progress.reading().getAsLong())
                        .or(() -> Watermark.of(table).map(mark -> Offsets.of(mark.nextOffsets())))
                        .orElse(Offsets.START)
                : progress.next();
        return Optional.of(ChangeStream.over(position, partitions));
    }

    private void write(Map<Integer, Long> offsets) {
        if (offsets.isEmpty() || offsets.equals(held)) {
            return;
        }
        retention.holdRetention(HOLDER, topic, offsets);
        held = Map.copyOf(offsets);
    }
}
