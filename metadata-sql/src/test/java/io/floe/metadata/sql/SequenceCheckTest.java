package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.ProducerState;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequenceCheckTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 0);

    @Test
    void aProducerWithNothingStoredMustStartAtSequenceZero() {
        assertThat(SequenceCheck.check(null, batch(0, 0, 9), PARTITION)).isInstanceOf(SequenceCheck.Accept.class);
        // B overtook A (A's upload failed, or A waits on another agent): B must not be stored first.
        assertOutOfOrder(SequenceCheck.check(null, batch(0, 10, 19), PARTITION), "sequence 0, got 10");
    }

    @Test
    void aRetryIsADuplicateOnlyWithinWhatItsEpochStored() {
        ProducerHistory history = ProducerHistory.fresh((short) 0);
        for (int sequence = 0; sequence < 100; sequence += 10) {
            history.record((short) 0, new RecentBatch(sequence, sequence + 9, sequence));
        }

        // Remembered: the original offset.
        assertThat(SequenceCheck.check(history, batch(0, 90, 99), PARTITION))
                .isEqualTo(new SequenceCheck.Duplicate(90));
        // Stored in this epoch, older than the remembered batches: its offset is unknown.
        assertThat(SequenceCheck.check(history, batch(0, 0, 9), PARTITION))
                .isEqualTo(new SequenceCheck.Duplicate(AppendResult.Duplicate.UNKNOWN_OFFSET));
        assertThat(SequenceCheck.check(history, batch(0, 100, 109), PARTITION))
                .isInstanceOf(SequenceCheck.Accept.class);
        assertOutOfOrder(SequenceCheck.check(history, batch(0, 95, 104), PARTITION), "expected 100, got 95");
        assertOutOfOrder(SequenceCheck.check(history, batch(0, 101, 109), PARTITION), "expected 100, got 101");
    }

    @Test
    void nothingBeforeTheEpochsFirstStoredSequenceIsADuplicate() {
        // A state row written before first sequences were recorded (or a history that started late).
        ProducerHistory legacy = new ProducerHistory(
                (short) 0, ProducerHistory.UNKNOWN_SEQUENCE, 19, List.of(new RecentBatch(10, 19, 0)));
        ProducerHistory lateStart = new ProducerHistory((short) 0, 10, 19, List.of(new RecentBatch(10, 19, 0)));

        assertOutOfOrder(SequenceCheck.check(legacy, batch(0, 0, 9), PARTITION), "expected 20, got 0");
        assertOutOfOrder(SequenceCheck.check(lateStart, batch(0, 0, 9), PARTITION), "expected 20, got 0");
        assertThat(SequenceCheck.check(lateStart, batch(0, 10, 19), PARTITION))
                .isEqualTo(new SequenceCheck.Duplicate(0));
    }

    @Test
    void storedRangesAreCountedFromTheEpochsFirstSequenceAcrossTheWrap() {
        ProducerHistory history = new ProducerHistory((short) 0, Integer.MAX_VALUE - 99, 49, List.of());

        assertThat(history.stored(Integer.MAX_VALUE - 99, Integer.MAX_VALUE)).isTrue();
        assertThat(history.stored(0, 49)).isTrue();
        assertThat(history.stored(Integer.MAX_VALUE - 9, 5)).isTrue();
        assertThat(history.stored(40, 50)).isFalse();
        assertThat(history.stored(Integer.MAX_VALUE - 100, Integer.MAX_VALUE - 90))
                .isFalse();
        assertThat(SequenceCheck.nextSequence(Integer.MAX_VALUE)).isZero();
    }

    @Test
    void epochsAreFencedAndANewOneStartsAtZero() {
        ProducerHistory history = new ProducerHistory((short) 3, 0, 9, List.of(new RecentBatch(0, 9, 0)));

        assertThat(SequenceCheck.check(history, batch(2, 10, 19), PARTITION))
                .isInstanceOfSatisfying(
                        SequenceCheck.Refuse.class,
                        refuse -> assertThat(refuse.error()).isEqualTo(AppendError.PRODUCER_FENCED));
        assertOutOfOrder(SequenceCheck.check(history, batch(4, 10, 19), PARTITION), "sequence 0, got 10");
        assertThat(SequenceCheck.check(history, batch(4, 0, 9), PARTITION)).isInstanceOf(SequenceCheck.Accept.class);
    }

    @Test
    void aTransactionalDuplicateIsStoredOnlyWithinTheOpenTransaction() {
        List<RecentBatch> recent = List.of(new RecentBatch(0, 9, 0), new RecentBatch(10, 19, 11));
        ProducerHistory ended = new ProducerHistory((short) 3, 0, 19, recent, ProducerHistory.NO_TRANSACTION);
        ProducerHistory laterOpen = new ProducerHistory((short) 3, 0, 19, recent, 11);
        SequenceCheck.Duplicate first = new SequenceCheck.Duplicate(0);
        SequenceCheck.Duplicate unknown = new SequenceCheck.Duplicate(AppendResult.Duplicate.UNKNOWN_OFFSET);

        assertEndedTransaction(SequenceCheck.inOpenTransaction(ended, first, batch(3, 0, 9), PARTITION));
        assertEndedTransaction(SequenceCheck.inOpenTransaction(ended, unknown, batch(3, 0, 9), PARTITION));
        assertEndedTransaction(SequenceCheck.inOpenTransaction(laterOpen, first, batch(3, 0, 9), PARTITION));
        SequenceCheck.Duplicate second = new SequenceCheck.Duplicate(11);
        assertThat(SequenceCheck.inOpenTransaction(laterOpen, second, batch(3, 10, 19), PARTITION))
                .isEqualTo(second);
        assertThat(SequenceCheck.inOpenTransaction(laterOpen, unknown, batch(3, 0, 9), PARTITION))
                .isEqualTo(unknown);
    }

    private static void assertEndedTransaction(SequenceCheck.Verdict verdict) {
        assertThat(verdict).isInstanceOfSatisfying(SequenceCheck.Refuse.class, refuse -> {
            assertThat(refuse.error()).isEqualTo(AppendError.INVALID_TXN_STATE);
            assertThat(refuse.message()).contains("stored by a transaction that has ended");
        });
    }

    private static ProducerState batch(int epoch, int baseSequence, int lastSequence) {
        return new ProducerState(7, (short) epoch, baseSequence, lastSequence);
    }

    private static void assertOutOfOrder(SequenceCheck.Verdict verdict, String detail) {
        assertThat(verdict).isInstanceOfSatisfying(SequenceCheck.Refuse.class, refuse -> {
            assertThat(refuse.error()).isEqualTo(AppendError.OUT_OF_ORDER_SEQUENCE);
            assertThat(refuse.message()).contains(detail);
        });
    }
}
