package io.floe.tableflow.delta;

import io.floe.core.object.ObjectInfo;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of a table's Delta log once {@code floe.tableflow.delta.enabled} is turned off. The log is
 * frozen at its last version and stays readable, its files kept, for the table's snapshot retention (the
 * deleted-file retention Floe gives the log): readers of the Delta table get as long to move away as
 * readers of an older version get after any removal. Then its protection of files ends at once and the
 * log is deleted; the files only it kept are Iceberg orphans from then on, which orphan removal deletes.
 *
 * <p>The table job's maintenance {@link #retire retires} the log: the first run that finds Delta off
 * records on the Iceberg table when the log's files stop being kept ({@value #RETIRED_AFTER_PROPERTY}, a
 * metadata commit under the table's lease), and the first run after that time deletes the log (at most
 * {@link #DELETES_MAX} objects a run; the rest the next) and then the mark. From that time on the log
 * references nothing for {@link DeltaFileReferences}, however much of it is left. Turning Delta on again
 * before that time keeps the log and mirrors on from its last version ({@link #resume}); after it, the
 * rest of the old log is deleted first and a new log starts at version 0.
 */
public final class DeltaRetirement {

    private static final Logger LOGGER = LoggerFactory.getLogger(DeltaRetirement.class);

    /** Set on an Iceberg table whose Delta log was turned off: when the log stops keeping files and goes. */
    public static final String RETIRED_AFTER_PROPERTY = "floe.tableflow.delta.retired-after";

    /** Deletes per run at most; the rest wait for the next run. */
    static final int DELETES_MAX = 10_000;

    private DeltaRetirement() {}

    /** What a run did: log files deleted, and where the log stands. */
    public record Outcome(int removed, State state) {
        static final Outcome NO_LOG = new Outcome(0, State.NO_LOG);
    }

    /** Where a log that was turned off stands. */
    public enum State {
        /** The table has no Delta log (any more). */
        NO_LOG,
        /** Turned off now: the time it goes was recorded. */
        MARKED,
        /** Readable and keeping its files until the recorded time. */
        KEPT,
        /** Past its time: being deleted. */
        DELETING
    }

    /**
     * On a table whose Delta publishing is off: records when its log goes ({@code now} plus
     * {@code retention}) the first time, and deletes the log once that time passed.
     */
    public static Outcome retire(Table table, Duration retention, Instant now) {
        Optional<Instant> after = retiredAfter(table);
        Optional<DeltaLogLocation> log = DeltaLogLocation.of(table);
        if (log.isEmpty()) {
            after.ifPresent(ignored -> unmark(table));
            return Outcome.NO_LOG;
        }
        if (after.isEmpty()) {
            Instant goes = now.plus(retention);
            table.updateProperties()
                    .set(RETIRED_AFTER_PROPERTY, goes.toString())
                    .commit();
            LOGGER.info(
                    "delta log turned off table={}: it stays readable, its files kept, until {}; then it is deleted",
                    table.name(),
                    goes);
            return new Outcome(0, State.MARKED);
        }
        if (now.isBefore(after.get())) {
            return new Outcome(0, State.KEPT);
        }
        int removed = delete(table, log.get());
        return new Outcome(removed, removed == 0 ? State.NO_LOG : State.DELETING);
    }

    /**
     * On a table whose Delta publishing is on, before its log is synced: a log turned off earlier is kept
     * and mirrored on when its time has not come, and otherwise the rest of it is deleted first (the sync
     * then starts a new log). Returns whether the log may be synced now.
     */
    public static boolean resume(Table table, Instant now) {
        Optional<Instant> after = retiredAfter(table);
        if (after.isEmpty()) {
            return true;
        }
        if (now.isBefore(after.get())) {
            unmark(table);
            LOGGER.info("delta log turned on again table={}: it is mirrored on from its last version", table.name());
            return true;
        }
        Optional<DeltaLogLocation> log = DeltaLogLocation.of(table);
        if (log.isPresent() && delete(table, log.get()) > 0) {
            return false; // more to delete: the next round goes on
        }
        LOGGER.info("delta log turned on again table={} after its old log was deleted: a new log starts", table.name());
        return true;
    }

    /**
     * Whether the Delta log of {@code table} keeps no files at {@code now}: it was turned off and its time
     * passed, however much of it is left.
     */
    static boolean retired(Table table, Instant now) {
        return retiredAfter(table).filter(after -> !now.isBefore(after)).isPresent();
    }

    /** Deletes up to {@link #DELETES_MAX} objects of the log; when none is left, the mark goes. */
    private static int delete(Table table, DeltaLogLocation log) {
        List<ObjectInfo> objects = log.list();
        List<ObjectInfo> batch = objects.subList(0, Math.min(objects.size(), DELETES_MAX));
        for (ObjectInfo object : batch) {
            log.store().delete(object.key());
        }
        if (batch.size() == objects.size()) {
            unmark(table);
        }
        if (!batch.isEmpty()) {
            LOGGER.info(
                    "delta log deleted table={} files={} left={}",
                    table.name(),
                    batch.size(),
                    objects.size() - batch.size());
        }
        return batch.size();
    }

    private static void unmark(Table table) {
        table.updateProperties().remove(RETIRED_AFTER_PROPERTY).commit();
    }

    private static Optional<Instant> retiredAfter(Table table) {
        String value = table.properties().get(RETIRED_AFTER_PROPERTY);
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(value.trim()));
        } catch (DateTimeParseException e) {
            // Not written by Floe: kept as if just turned off, so nothing goes early.
            LOGGER.warn(
                    "table {} has {}='{}', which is no instant; its delta log is kept",
                    table.name(),
                    RETIRED_AFTER_PROPERTY,
                    value);
            return Optional.of(Instant.MAX);
        }
    }
}
