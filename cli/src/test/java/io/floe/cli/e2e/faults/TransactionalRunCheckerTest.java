package io.floe.cli.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.e2e.faults.FaultRunChecker.Observation;
import io.floe.cli.e2e.faults.TransactionalRunChecker.History;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Outcome;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Result;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Sent;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Transaction;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hand-made histories, each breaking one property, so the checker is shown able to fail. The base
 * history is clean: producer 1 commits t1-0 (partitions 0 and 1), aborts t1-1 (partitions 0 and 1)
 * and commits t1-2; producer 2's t2-0 has an unknown outcome and none of it is visible. The log has
 * a marker after each transaction; read_committed reads leave out the aborted records, the
 * read_uncommitted read has them.
 */
class TransactionalRunCheckerTest {

    private final List<Transaction> transactions = new ArrayList<>(List.of(
            new Transaction(
                    "t1-000000",
                    Outcome.COMMITTED,
                    List.of(sent("t1-000000-0", 0), sent("t1-000000-1", 1), sent("t1-000000-2", 0)),
                    "committed"),
            new Transaction(
                    "t1-000001",
                    Outcome.ABORTED,
                    List.of(sent("t1-000001-0", 1), sent("t1-000001-1", 0)),
                    "aborted on purpose"),
            new Transaction(
                    "t2-000000",
                    Outcome.UNKNOWN,
                    List.of(sent("t2-000000-0", 0), sent("t2-000000-1", 1)),
                    "commit failed"),
            new Transaction(
                    "t1-000002",
                    Outcome.COMMITTED,
                    List.of(sent("t1-000002-0", 1), sent("t1-000002-1", 0)),
                    "committed")));

    /** Partition 0: t1-0-0, t1-0-2, marker, t1-1-1, marker, t1-2-1, marker; partition 1 likewise. */
    private final List<Observation> log = new ArrayList<>(List.of(
            new Observation("uncommitted", 0, 0, "t1-000000-0"),
            new Observation("uncommitted", 0, 1, "t1-000000-2"),
            new Observation("uncommitted", 0, 3, "t1-000001-1"),
            new Observation("uncommitted", 0, 5, "t1-000002-1"),
            new Observation("uncommitted", 1, 0, "t1-000000-1"),
            new Observation("uncommitted", 1, 2, "t1-000001-0"),
            new Observation("uncommitted", 1, 4, "t1-000002-0")));

    private final List<Observation> committed = new ArrayList<>();
    private final List<Observation> polls = new ArrayList<>();

    TransactionalRunCheckerTest() {
        for (Observation o : log) {
            if (!o.value().startsWith("t1-000001")) {
                committed.add(new Observation("committed", o.partition(), o.offset(), o.value()));
                polls.add(new Observation("txn-reader-1", o.partition(), o.offset(), o.value()));
            }
        }
    }

    private static Sent sent(String value, int partition) {
        return new Sent(value, partition);
    }

    private Result check() {
        return TransactionalRunChecker.check(
                new History(transactions, polls, List.of(committed, List.copyOf(committed)), log));
    }

    @Test
    void aCleanHistoryIsValid() {
        Result result = check();

        assertThat(result.valid()).isTrue();
        assertThat(result.counts())
                .isEqualTo("committed=2 aborted=1 unknown=1 committedRecords=5 abortedInLog=2 unknownCommitted=0"
                        + " unknownAborted=1 abortedReads=0 committedMissing=0 duplicated=0 partial=0 misordered=0"
                        + " changed=0 neverPolled=0");
        assertThat(result.examples()).containsOnlyKeys("unknownAborted");
        assertThat(result.examples().get("unknownAborted"))
                .singleElement()
                .asString()
                .contains("t2-000000");
    }

    @Test
    void anAbortedRecordReadAtReadCommittedIsAnAbortedRead() {
        committed.add(new Observation("committed", 1, 2, "t1-000001-0"));

        Result result = check();

        assertThat(result.abortedReads()).isEqualTo(1);
        assertThat(result.valid()).isFalse();
        assertThat(result.examples().get("abortedReads"))
                .singleElement()
                .asString()
                .contains("t1-000001");
    }

    @Test
    void anAbortedRecordPolledByTheGroupIsAnAbortedRead() {
        polls.add(new Observation("txn-reader-2", 0, 3, "t1-000001-1"));

        assertThat(check().abortedReads()).isEqualTo(1);
    }

    @Test
    void anAbortedRecordInTheReadUncommittedReadIsNoViolation() {
        Result result = check();

        assertThat(result.abortedInLog()).isEqualTo(2);
        assertThat(result.abortedReads()).isZero();
    }

    @Test
    void aCommittedRecordMissingFromAReadCommittedReadIsMissing() {
        List<Observation> partial = new ArrayList<>(committed);
        partial.removeIf(o -> o.value().equals("t1-000002-1"));

        Result result =
                TransactionalRunChecker.check(new History(transactions, polls, List.of(committed, partial), log));

        assertThat(result.committedMissing()).isEqualTo(1);
        assertThat(result.valid()).isFalse();
        assertThat(result.examples().get("committedMissing"))
                .singleElement()
                .asString()
                .contains("final read 1");
    }

    @Test
    void aCommittedRecordMissingFromTheReadUncommittedReadIsMissing() {
        log.removeIf(o -> o.value().equals("t1-000000-0"));

        assertThat(check().committedMissing()).isEqualTo(1);
    }

    @Test
    void aCommittedRecordInAnotherPartitionIsMissing() {
        committed.replaceAll(o -> o.value().equals("t1-000000-1") ? new Observation("committed", 0, 9, o.value()) : o);

        assertThat(check().committedMissing()).isEqualTo(1);
    }

    @Test
    void aRecordAtTwoOffsetsIsDuplicated() {
        committed.add(new Observation("committed", 1, 6, "t1-000002-0"));

        Result result = check();

        assertThat(result.duplicated()).isEqualTo(1);
        assertThat(result.valid()).isFalse();
    }

    @Test
    void anUnknownOutcomeWhollyVisibleIsExcusedAsCommitted() {
        addUnknownToLog(List.of(0, 1));

        Result result = check();

        assertThat(result.valid()).isTrue();
        assertThat(result.unknownCommitted()).isEqualTo(1);
        assertThat(result.unknownAborted()).isZero();
    }

    @Test
    void anUnknownOutcomePartlyVisibleIsPartial() {
        addUnknownToLog(List.of(1));

        Result result = check();

        assertThat(result.partial()).isEqualTo(1);
        assertThat(result.unknownAborted()).isZero();
        assertThat(result.valid()).isFalse();
    }

    @Test
    void anUnknownOutcomeTheReadsDisagreeOnIsPartial() {
        List<Observation> other = new ArrayList<>(committed);
        other.add(new Observation("committed", 0, 7, "t2-000000-0"));
        other.add(new Observation("committed", 1, 6, "t2-000000-1"));

        Result result = TransactionalRunChecker.check(new History(transactions, polls, List.of(committed, other), log));

        assertThat(result.partial()).isEqualTo(1);
        assertThat(result.valid()).isFalse();
    }

    @Test
    void recordsOfAProducerOutOfSendOrderInAPartitionAreMisordered() {
        committed.replaceAll(o -> o.partition() == 0 && o.offset() == 0
                ? new Observation("committed", 0, 0, "t1-000000-2")
                : o.partition() == 0 && o.offset() == 1 ? new Observation("committed", 0, 1, "t1-000000-0") : o);

        Result result = check();

        assertThat(result.misordered()).isEqualTo(1);
        assertThat(result.changed()).isPositive(); // the polls saw those offsets with the other values
        assertThat(result.valid()).isFalse();
        assertThat(result.examples().get("misordered"))
                .singleElement()
                .asString()
                .contains("offset 1");
    }

    @Test
    void aTransactionSplitByALaterOneOfTheSameProducerIsMisordered() {
        // t1-000001-1 between t1-000000's two records in partition 0 of the read_uncommitted read.
        log.replaceAll(o -> o.partition() == 0 && o.offset() == 1
                ? new Observation("uncommitted", 0, 1, "t1-000001-1")
                : o.partition() == 0 && o.offset() == 3 ? new Observation("uncommitted", 0, 3, "t1-000000-2") : o);

        Result result = check();

        assertThat(result.misordered()).isEqualTo(1);
        assertThat(result.examples().get("misordered"))
                .singleElement()
                .asString()
                .contains("offset 3");
    }

    @Test
    void differentProducersMayInterleave() {
        log.add(new Observation("uncommitted", 0, 2, "t2-000009-0"));
        log.add(new Observation("uncommitted", 1, 1, "t2-000009-1"));

        assertThat(check().misordered()).isZero();
    }

    @Test
    void anOffsetSeenWithTwoValuesIsChanged() {
        polls.add(new Observation("txn-reader-2", 0, 0, "t1-000002-1"));

        Result result = check();

        assertThat(result.changed()).isEqualTo(1);
        assertThat(result.valid()).isFalse();
    }

    @Test
    void aCommittedRecordTheGroupNeverPolledCounts() {
        polls.removeIf(o -> o.value().equals("t1-000002-0"));

        Result result = check();

        assertThat(result.neverPolled()).isEqualTo(1);
        assertThat(result.committedMissing()).isZero();
        assertThat(result.valid()).isFalse();
    }

    /** Puts the unknown transaction's records with the given indexes into both read_committed reads. */
    private void addUnknownToLog(List<Integer> indexes) {
        for (int index : indexes) {
            Sent sent = transactions.get(2).records().get(index);
            Observation at = new Observation("committed", sent.partition(), 10 + index, sent.value());
            committed.add(at);
            log.add(at);
        }
    }
}
