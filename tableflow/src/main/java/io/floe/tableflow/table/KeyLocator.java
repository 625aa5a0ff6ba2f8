package io.floe.tableflow.table;

import io.floe.tableflow.rows.UpsertKey;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds where an upsert table's round keys have their current rows, in memory bounded by the table's
 * {@code floe.tableflow.upsert.index.max.keys} and by the agent's {@link KeyIndexBudget}: while the table
 * has at most that many keys and its index fits its part of the budget, the job keeps a {@link KeyIndex}
 * of all of them (built once, then moved along by its own commits), and otherwise each round
 * {@link KeyLookup looks up} just its keys in the table's files. Both describe exactly the snapshot the
 * round commits on, so a crash or a snapshot the job did not make never leaves a stale answer: the index
 * is rebuilt from the table, a lookup always reads it.
 */
final class KeyLocator {

    private static final Logger LOGGER = LoggerFactory.getLogger(KeyLocator.class);

    /** Bytes a key is taken to have before an index of the table was built (a record key of 16 bytes). */
    private static final long KEY_BYTES_GUESS = 16;

    private final Clock clock;
    private final TableMetrics metrics;
    private final KeyIndexBudget budget;
    private final String tableName;
    /** The table's part of the budget; null until it first asks, and after it was closed. */
    private KeyIndexBudget.Share share;
    /** The index of the snapshot it names; null while none is held. */
    private KeyIndex index;
    /** Whether the last round looked its keys up (to log the changes between the two ways only). */
    private boolean lookingUp;
    /** The bytes of a key of this table, on average, as the last index had them. */
    private long keyBytesPerKey = KEY_BYTES_GUESS;
    /**
     * The live rows the table's summary counted when a build stopped at a bound all the same (rows the
     * summary does not count, or keys longer than guessed), that bound and the room it had; no build is
     * tried again until the count is lower, the bound another or the room larger.
     */
    private long buildStoppedAtRows = Long.MAX_VALUE;

    private long buildStoppedAtBound = -1;
    private long buildStoppedAtRoom = -1;

    KeyLocator(Clock clock, TableMetrics metrics, KeyIndexBudget budget, String tableName) {
        this.clock = clock;
        this.metrics = metrics;
        this.budget = budget;
        this.tableName = tableName;
    }

    /**
     * Before a round reads its records: holds the index of {@code table}'s current snapshot, by the
     * round's {@code key}, when that has at most {@code maxKeys} live rows (one a key) and fits the room the
     * budget gives it, building it if the one held is of another snapshot or of other key column types (a
     * promoted key column).
     */
    void prepare(Table table, UpsertKey key, long maxKeys) {
        Snapshot snapshot = table.currentSnapshot();
        long current = snapshot == null ? -1 : snapshot.snapshotId();
        if (index != null && index.snapshotId() == current && index.key().equals(key) && index.size() <= maxKeys) {
            return;
        }
        drop(); // its memory is free before a new one is built
        long liveRows = liveRows(snapshot);
        if (liveRows > maxKeys) {
            share().wantNone();
            lookUpFromNowOn(table, liveRows + " live rows", "maxKeys=" + maxKeys);
            return;
        }
        long room = share().roomFor(KeyIndex.bytes(liveRows, liveRows * keyBytesPerKey));
        if (room == 0) {
            lookUpFromNowOn(
                    table,
                    "about " + KeyIndex.bytes(liveRows, liveRows * keyBytesPerKey) + " bytes for " + liveRows
                            + " live rows",
                    "its fair share of the agent's key index budget, " + budget.fairShare() + " of " + budget.bytes()
                            + " bytes");
            return;
        }
        if (liveRows >= buildStoppedAtRows && maxKeys == buildStoppedAtBound && room <= buildStoppedAtRoom) {
            share.release();
            lookUpFromNowOn(table, liveRows + " live rows", "maxKeys=" + maxKeys + ", room " + room + " bytes");
            return;
        }
        long startedMs = clock.millis();
        index = KeyIndex.build(table, key, maxKeys, room).orElse(null);
        metrics.indexBuilt();
        if (index == null) {
            buildStoppedAtRows = liveRows;
            buildStoppedAtBound = maxKeys;
            buildStoppedAtRoom = room;
            share.release();
            lookUpFromNowOn(
                    table,
                    "over " + maxKeys + " keys or " + room + " bytes in " + liveRows + " live rows counted",
                    "maxKeys=" + maxKeys + ", room " + room + " bytes");
            return;
        }
        share.hold(index.bytes());
        buildStoppedAtRows = Long.MAX_VALUE;
        lookingUp = false;
        learnKeyBytes();
        metrics.indexKeys(index.size());
        LOGGER.info(
                "upsert key index built table={} snapshot={} keys={} bytes={} duplicates={} ms={}",
                table.name(),
                current,
                index.size(),
                index.bytes(),
                index.duplicates().size(),
                clock.millis() - startedMs);
    }

    /** Where {@code keys} (of {@code key}) have their rows in the snapshot {@link #prepare} saw. */
    KeyRows rowsOf(Table table, UpsertKey key, Set<ByteBuffer> keys) {
        if (index != null) {
            return index;
        }
        long startedMs = clock.millis();
        KeyLookup.Found found = KeyLookup.find(table, key, keys);
        metrics.lookedUp(found.filesRead());
        LOGGER.debug(
                "upsert keys looked up table={} keys={} found={} files={} filesRead={} rowsRead={} ms={}",
                table.name(),
                keys.size(),
                found.size(),
                found.files(),
                found.filesRead(),
                found.rowsRead(),
                clock.millis() - startedMs);
        return found;
    }

    /**
     * After the round's commit: the index moves to the new snapshot when the commit is known to have made
     * the table's current snapshot on top of the index's, and the index is still within {@code maxKeys}
     * and the budget; otherwise it is dropped (the next round builds it again or looks its keys up).
     */
    void afterCommit(Table table, UpsertRound.Written written, Watermark target, boolean committed, long maxKeys) {
        KeyIndex before = index;
        index = null;
        if (before != null && committed) {
            Snapshot snapshot = table.currentSnapshot();
            if (snapshot != null
                    && target.toJson().equals(snapshot.summary().get(Watermark.SUMMARY_PROPERTY))
                    && Objects.equals(snapshot.parentId(), before.snapshotId())) {
                before.apply(written, snapshot.snapshotId());
                if (before.size() > maxKeys) {
                    lookUpFromNowOn(table, before.size() + " keys", "maxKeys=" + maxKeys);
                } else if (!share().grow(before.bytes())) {
                    lookUpFromNowOn(
                            table,
                            before.bytes() + " bytes",
                            "its fair share of the agent's key index budget, " + budget.fairShare() + " of "
                                    + budget.bytes() + " bytes");
                } else {
                    index = before;
                    learnKeyBytes();
                }
            }
        }
        if (index == null && share != null) {
            share.release();
        }
        metrics.indexKeys(index == null ? 0 : index.size());
    }

    /** The table left this agent (its lease moved, it was turned off): the index and its share go. */
    void close() {
        index = null;
        metrics.indexKeys(0);
        if (share != null) {
            share.close();
            share = null;
        }
    }

    /** The index held now; null when none is (for tests). */
    KeyIndex index() {
        return index;
    }

    private KeyIndexBudget.Share share() {
        if (share == null) {
            share = budget.open(tableName, this::evicted);
        }
        return share;
    }

    /** The budget took the index back for another table's (on this thread, between rounds). */
    private void evicted() {
        index = null;
        metrics.indexKeys(0);
    }

    private void drop() {
        index = null;
        if (share != null) {
            share.release();
        }
    }

    private void learnKeyBytes() {
        if (index.size() > 0) {
            keyBytesPerKey = Math.max(1, index.keyBytes / index.size());
        }
    }

    private void lookUpFromNowOn(Table table, String size, String bound) {
        metrics.indexKeys(0);
        if (!lookingUp) {
            LOGGER.info(
                    "upsert table over its key index bound table={} size={} bound={}: rounds look their keys up"
                            + " in the table's files",
                    table.name(),
                    size,
                    bound);
        }
        lookingUp = true;
    }

    /** Rows less the rows deletes hide: the keys of a table only Tableflow wrote; 0 when unknown. */
    private static long liveRows(Snapshot snapshot) {
        if (snapshot == null) {
            return 0;
        }
        Map<String, String> summary = snapshot.summary();
        return number(summary, SnapshotSummary.TOTAL_RECORDS_PROP)
                - number(summary, SnapshotSummary.TOTAL_POS_DELETES_PROP)
                - number(summary, SnapshotSummary.TOTAL_EQ_DELETES_PROP);
    }

    private static long number(Map<String, String> summary, String property) {
        try {
            return Long.parseLong(summary.getOrDefault(property, "0"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
