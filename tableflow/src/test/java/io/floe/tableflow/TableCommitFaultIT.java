package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.tableflow.CommitFaults.Fault;
import java.nio.file.Path;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table commit whose outcome is lost (the answer of the catalog's swap never arrives, whether or not
 * the swap happened), that fails before the swap, or that is rejected after the dead-letter commit went
 * through leaves both tables readable by Iceberg's reader, every data file of their current snapshots
 * present, and each record of the topic in exactly one of them exactly once, also after later rounds
 * resume. Rounds are driven one poll at a time on a stepped clock; the faults come from a catalog
 * decorator ({@link CommitFaults}).
 */
@Timeout(180)
class TableCommitFaultIT {

    @TempDir
    Path dataDir;

    private CommitFaults faults;
    private TableflowHarness floe;
    private JsonRounds rounds;

    /** Where the fault strikes: which table's snapshot commit, and how. */
    enum Case {
        ROWS_APPLIED_THEN_UNKNOWN(false, Fault.APPLIED_THEN_UNKNOWN),
        ROWS_CONNECTION_LOST_AFTER_APPLY(false, Fault.CONNECTION_LOST_AFTER_APPLY),
        /** The dead letters are in, the rows are not: as a crash between the two commits leaves it. */
        ROWS_UNKNOWN_NOT_APPLIED_AFTER_DEAD_LETTERS(false, Fault.UNKNOWN_NOT_APPLIED),
        ROWS_REJECTED_AFTER_DEAD_LETTERS(false, Fault.REJECTED),
        DEAD_LETTERS_APPLIED_THEN_UNKNOWN(true, Fault.APPLIED_THEN_UNKNOWN),
        DEAD_LETTERS_CONNECTION_LOST_AFTER_APPLY(true, Fault.CONNECTION_LOST_AFTER_APPLY),
        DEAD_LETTERS_UNKNOWN_NOT_APPLIED(true, Fault.UNKNOWN_NOT_APPLIED),
        DEAD_LETTERS_REJECTED(true, Fault.REJECTED),
        ROWS_MANIFEST_WRITE_FAILS(false, Fault.MANIFEST_WRITE_FAILS),
        DEAD_LETTERS_MANIFEST_WRITE_FAILS(true, Fault.MANIFEST_WRITE_FAILS);

        final boolean deadLetters;
        final Fault fault;

        Case(boolean deadLetters, Fault fault) {
            this.deadLetters = deadLetters;
            this.fault = fault;
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (floe != null) {
            floe.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Case.class)
    void aFailedOrUnknownCommitLeavesEveryRecordReadableExactlyOnce(Case where) {
        start(TableflowConfig.defaults(dataDir.resolve("spool")).maxBytesPerRound());
        rounds.produceRound(0, true);
        rounds.pollUntilCaughtUp();

        rounds.produceRound(1, true);
        TableIdentifier target = where.deadLetters
                ? floe.tables.deadLetterIdentifier(JsonRounds.TOPIC)
                : floe.tables.identifier(JsonRounds.TOPIC);
        faults.arm(target, where.fault);
        rounds.poll();
        assertThat(faults.fired()).containsExactly(new CommitFaults.Fired(target, where.fault));

        rounds.produceRound(2, true);
        rounds.pollUntilCaughtUp();
        rounds.assertEveryRecordOnceAndEveryFilePresent();
        // Files stay only where the commit may have applied (orphan removal takes them later if it did
        // not); where it definitely did not, they are gone.
        boolean orphansLeft = where.fault == Fault.UNKNOWN_NOT_APPLIED;
        if (!orphansLeft || where.deadLetters) {
            assertThat(rounds.unreferencedDataFiles(floe.tables.identifier(JsonRounds.TOPIC)))
                    .as("orphan data files of the table")
                    .isEmpty();
        }
        if (!orphansLeft || !where.deadLetters) {
            assertThat(rounds.unreferencedDataFiles(floe.tables.deadLetterIdentifier(JsonRounds.TOPIC)))
                    .as("orphan data files of the dead-letter table")
                    .isEmpty();
        }
    }

    /**
     * One batch per round, partitions taken in turn: the round after a rejected row commit reads the
     * other partition first. The dead-letter watermark must not fall back on the partition whose dead
     * letters the failed round committed, or the round after writes them again.
     */
    @Test
    void theDeadLetterWatermarkNeverFallsBackAfterARejectedRowCommit() {
        start(1);
        rounds.produceRound(0, true);
        rounds.pollUntilCaughtUp();

        rounds.produceRound(1, true);
        faults.arm(floe.tables.identifier(JsonRounds.TOPIC), Fault.REJECTED);
        rounds.poll();
        assertThat(faults.fired()).hasSize(1);
        rounds.pollUntilCaughtUp();
        rounds.produceRound(2, true);
        rounds.pollUntilCaughtUp();
        rounds.assertEveryRecordOnceAndEveryFilePresent();
    }

    /** Records removed before the table read them are counted once, not again by each round that failed. */
    @Test
    void recordsRemovedBelowTheLogStartAreCountedOnceAcrossAFailedRound() {
        start(TableflowConfig.defaults(dataDir.resolve("spool")).maxBytesPerRound());
        rounds.produceRound(0, false);
        rounds.pollUntilCaughtUp();
        rounds.produceRound(1, false);
        floe.metadata.deleteRecords(new TopicPartition(JsonRounds.TOPIC, 0), 15);

        faults.arm(floe.tables.identifier(JsonRounds.TOPIC), Fault.REJECTED);
        rounds.poll();
        assertThat(faults.fired()).hasSize(1);
        rounds.pollUntilCaughtUp();

        assertThat(floe.meters
                        .find("floe.tableflow.skipped.records")
                        .tag("topic", JsonRounds.TOPIC)
                        .counter()
                        .count())
                .isEqualTo(5);
    }

    private void start(long maxBytesPerRound) {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog));
        rounds = new JsonRounds(floe, dataDir.resolve("spool"), maxBytesPerRound);
    }
}
