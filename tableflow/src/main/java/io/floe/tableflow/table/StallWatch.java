package io.floe.tableflow.table;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table's run of failed rounds, and whether it has gone on long enough that the table counts as
 * stalled: a table that cannot advance (a schema it cannot take, a batch that fails its CRC, a catalog
 * that refuses it) must not pin retention for good, or the log grows without bound behind it. Once
 * stalled, the job gives its retention hold up; what retention then removes before the table reads
 * it is counted as skipped when the table resumes.
 */
final class StallWatch {

    private static final Logger LOGGER = LoggerFactory.getLogger(StallWatch.class);

    private final String topic;
    private final Duration timeout;
    private final TableMetrics metrics;
    private Instant failingSince;
    private long failedRounds;
    private boolean stalled;
    /** Until the first round here succeeds, the table may carry a stalled mark from an earlier owner. */
    private boolean markMayRemain = true;

    StallWatch(String topic, Duration timeout, TableMetrics metrics) {
        this.topic = topic;
        this.timeout = timeout;
        this.metrics = metrics;
    }

    /** What a failed round changed. */
    enum Change {
        NONE,
        STALLED,
        STILL_STALLED
    }

    Change failed(Instant now, RuntimeException failure) {
        if (failingSince == null) {
            failingSince = now;
        }
        failedRounds++;
        if (stalled) {
            return Change.STILL_STALLED;
        }
        if (Duration.between(failingSince, now).compareTo(timeout) < 0) {
            return Change.NONE;
        }
        stalled = true;
        metrics.stalled(true);
        LOGGER.warn(
                "table of topic={} cannot advance: {} rounds failed since {}, the last with {}; after {} s it no"
                        + " longer holds retention back (records removed before the table reads them are counted in"
                        + " floe.tableflow.skipped.records)",
                topic,
                failedRounds,
                failingSince,
                failure.toString(),
                timeout.toSeconds());
        return Change.STALLED;
    }

    /**
     * After a round succeeded; true when the table's stalled mark must go: it ended a stall, or it is
     * the first success here and the mark may be an earlier agent's (this agent restarted, or took the
     * table over).
     */
    boolean succeeded() {
        boolean ended = stalled || markMayRemain;
        markMayRemain = false;
        if (stalled) {
            LOGGER.info(
                    "table of topic={} advances again after {} failed rounds since {}",
                    topic,
                    failedRounds,
                    failingSince);
            metrics.stalled(false);
        }
        failingSince = null;
        failedRounds = 0;
        stalled = false;
        return ended;
    }

    /**
     * After this agent lost the table's lease: another agent now runs it, and this one's run of failures
     * (perhaps local to it: its disk, its network) says nothing about the table any more.
     */
    void reset() {
        if (stalled) {
            metrics.stalled(false);
        }
        failingSince = null;
        failedRounds = 0;
        stalled = false;
        markMayRemain = true;
    }

    /** What {@code floe tables describe} shows while the table is stalled. */
    String description(RuntimeException failure) {
        return "since " + failingSince + ", " + failedRounds + " rounds failed; retention is not held back; last"
                + " failure: " + failure;
    }
}
