package io.floe.tableflow.table;

import io.floe.core.metadata.LogRetention;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table's retention hold (DESIGN §6): on each partition, the offset below which retention may remove
 * records, so it never removes one the table has not read. Written before a round reads the log, at
 * the watermark the round starts from (0 on partitions the table has no watermark for yet, which
 * pauses retention there until the first commit), and moved up after each commit. Writing it only
 * after commits left the first round, and any round after a failed hold write, unprotected: retention
 * could remove what the table was about to read (found by the simulation).
 */
final class RetentionHold {

    static final String HOLDER = "tableflow";
    private static final Logger LOGGER = LoggerFactory.getLogger(RetentionHold.class);

    private final LogRetention metadata;
    private final String topic;
    private Map<Integer, Long> held = Map.of();
    private boolean released;

    RetentionHold(LogRetention metadata, String topic) {
        this.metadata = metadata;
        this.topic = topic;
    }

    /**
     * Before the round reads the log; throws when the hold cannot be written (the round must not read).
     * Written every round, not only when it changed: another agent (a stalled earlier owner of the table)
     * may have released it meanwhile.
     */
    void beforeRound(Watermark watermark, int partitions) {
        Map<Integer, Long> starts = new TreeMap<>();
        for (int partition = 0; partition < partitions; partition++) {
            starts.put(partition, Math.max(0, watermark.next(partition)));
        }
        held = Map.of();
        write(starts);
    }

    /** After a commit; a failure only leaves the hold lower (cautious) until the next round writes it. */
    void afterCommit(Watermark watermark) {
        try {
            write(watermark.nextOffsets());
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "cannot move the retention hold of topic={} up to {}: {}",
                    topic,
                    watermark.nextOffsets(),
                    e.toString());
        }
    }

    /**
     * Gives the hold up while the table cannot advance (it is stalled): retention may then remove what
     * the table has not read, which the table counts as skipped when it resumes. The next round that
     * gets as far as reading writes the hold again.
     */
    void release() {
        if (!released) {
            metadata.releaseRetention(HOLDER, topic);
            held = Map.of();
            released = true;
        }
    }

    private void write(Map<Integer, Long> offsets) {
        if (!offsets.isEmpty() && !offsets.equals(held)) {
            metadata.holdRetention(HOLDER, topic, offsets);
            held = Map.copyOf(offsets);
            released = false;
        }
    }
}
