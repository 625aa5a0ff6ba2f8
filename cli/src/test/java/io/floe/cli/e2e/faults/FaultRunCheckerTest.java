package io.floe.cli.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.e2e.faults.FaultRunChecker.Ack;
import io.floe.cli.e2e.faults.FaultRunChecker.History;
import io.floe.cli.e2e.faults.FaultRunChecker.Observation;
import io.floe.cli.e2e.faults.FaultRunChecker.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hand-made histories, each breaking one property, so the checker is shown able to fail. The base
 * history is clean: two producers, two partitions, every acknowledged value polled once and read at
 * its offset by two final reads.
 */
class FaultRunCheckerTest {

    private final List<Ack> acks = new ArrayList<>(List.of(
            new Ack("p1-000000", 0, 0),
            new Ack("p2-000000", 0, 1),
            new Ack("p1-000001", 0, 2),
            new Ack("p1-000002", 1, 0),
            new Ack("p2-000001", 1, 1)));
    private final List<String> failed = new ArrayList<>(List.of("p2-000002"));
    private final List<Observation> polls = new ArrayList<>();
    private final List<Observation> log = new ArrayList<>();

    FaultRunCheckerTest() {
        for (Ack ack : acks) {
            polls.add(new Observation("reader-1", ack.partition(), ack.offset(), ack.value()));
            log.add(new Observation("final", ack.partition(), ack.offset(), ack.value()));
        }
    }

    private Result check() {
        return FaultRunChecker.check(new History(acks, failed, polls, List.of(log, List.copyOf(log))));
    }

    @Test
    void aCleanHistoryIsValid() {
        Result result = check();

        assertThat(result.valid()).isTrue();
        assertThat(result.counts())
                .isEqualTo("acknowledged=5 withoutOffset=0 failed=1 lost=0 duplicated=0 reordered=0 changed=0"
                        + " neverPolled=0 gaps=0");
        assertThat(result.examples()).isEmpty();
    }

    @Test
    void aFailedSendThatIsStoredAnywayIsNoViolation() {
        polls.add(new Observation("reader-1", 1, 2, "p2-000002"));
        log.add(new Observation("final", 1, 2, "p2-000002"));

        assertThat(check().valid()).isTrue();
    }

    @Test
    void anAcknowledgedValueMissingFromTheLogIsLost() {
        log.removeIf(o -> o.value().equals("p1-000002"));
        log.add(new Observation("final", 1, 0, "p9-000000"));

        Result result = check();

        assertThat(result.lost()).isEqualTo(1);
        assertThat(result.valid()).isFalse();
        assertThat(result.examples().get("lost")).singleElement().asString().contains("p1-000002");
    }

    @Test
    void aValueAcknowledgedWithoutAnOffsetMustBeInItsPartition() {
        acks.set(4, new Ack("p2-000001", 1, -1));

        Result result = check();
        assertThat(result.valid()).isTrue();
        assertThat(result.withoutOffset()).isEqualTo(1);

        acks.set(4, new Ack("p2-000001", 0, -1));
        assertThat(check().lost()).isEqualTo(1);
        log.removeIf(o -> o.value().equals("p2-000001"));
        acks.set(4, new Ack("p2-000001", 1, -1));
        assertThat(check().lost()).isEqualTo(1);
    }

    @Test
    void anAcknowledgedValueAtAnotherOffsetIsLost() {
        acks.set(4, new Ack("p2-000001", 1, 7));

        assertThat(check().lost()).isEqualTo(1);
    }

    @Test
    void aValueMissingFromOnlyOneFinalReadIsLost() {
        List<Observation> partial = new ArrayList<>(log);
        partial.removeIf(o -> o.value().equals("p2-000001"));

        Result result = FaultRunChecker.check(new History(acks, failed, polls, List.of(log, partial)));

        assertThat(result.lost()).isEqualTo(1);
    }

    @Test
    void aValueAtTwoOffsetsIsDuplicated() {
        log.add(new Observation("final", 1, 2, "p2-000001"));

        Result result = check();

        assertThat(result.duplicated()).isEqualTo(1);
        assertThat(result.reordered()).isZero();
        assertThat(result.valid()).isFalse();
    }

    @Test
    void aValuePolledAtAnotherOffsetIsDuplicated() {
        polls.add(new Observation("reader-2", 0, 5, "p1-000000"));

        assertThat(check().duplicated()).isEqualTo(1);
    }

    @Test
    void aProducersValuesOutOfSendOrderInAPartitionAreReordered() {
        log.replaceAll(o -> o.partition() == 0 && o.offset() == 0
                ? new Observation("final", 0, 0, "p1-000001")
                : o.partition() == 0 && o.offset() == 2 ? new Observation("final", 0, 2, "p1-000000") : o);
        acks.replaceAll(a -> a.value().equals("p1-000000")
                ? new Ack("p1-000000", 0, 2)
                : a.value().equals("p1-000001") ? new Ack("p1-000001", 0, 0) : a);
        polls.clear();
        log.forEach(o -> polls.add(new Observation("reader-1", o.partition(), o.offset(), o.value())));

        Result result = check();

        assertThat(result.reordered()).isEqualTo(1);
        assertThat(result.lost()).isZero();
        assertThat(result.changed()).isZero();
        assertThat(result.valid()).isFalse();
        assertThat(result.examples().get("reordered"))
                .singleElement()
                .asString()
                .contains("offset 2");
    }

    @Test
    void differentProducersMayInterleaveInAnyOrder() {
        log.add(new Observation("final", 1, 2, "p3-000009"));
        log.add(new Observation("final", 1, 3, "p4-000001"));

        assertThat(check().reordered()).isZero();
    }

    @Test
    void anOffsetPolledWithAnotherValueThanReadIsChanged() {
        polls.replaceAll(
                o -> o.offset() == 1 && o.partition() == 1 ? new Observation("reader-1", 1, 1, "p7-000000") : o);
        polls.add(new Observation("reader-1", 1, 1, "p2-000001"));

        Result result = check();

        assertThat(result.changed()).isEqualTo(1);
        assertThat(result.valid()).isFalse();
    }

    @Test
    void twoFinalReadsThatDisagreeAreChanged() {
        List<Observation> other = new ArrayList<>(log);
        other.add(new Observation("final-2", 1, 2, "p5-000000"));
        List<Observation> first = new ArrayList<>(log);
        first.add(new Observation("final-1", 1, 2, "p6-000000"));

        Result result = FaultRunChecker.check(new History(acks, failed, polls, List.of(first, other)));

        assertThat(result.changed()).isEqualTo(1);
    }

    @Test
    void anAcknowledgedValueTheGroupNeverPolledCounts() {
        polls.removeIf(o -> o.value().equals("p2-000000"));

        Result result = check();

        assertThat(result.neverPolled()).isEqualTo(1);
        assertThat(result.lost()).isZero();
        assertThat(result.valid()).isFalse();
    }

    @Test
    void anOffsetMissingBelowAPartitionsLastIsAGap() {
        log.add(new Observation("final", 1, 4, "p2-000002"));

        Result result = check();

        assertThat(result.gaps()).isEqualTo(2);
        assertThat(result.valid()).isFalse();
    }
}
