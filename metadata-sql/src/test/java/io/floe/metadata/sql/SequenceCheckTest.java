package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.ProducerState;
import org.junit.jupiter.api.Test;

class SequenceCheckTest {

    @Test
    void aRetryOlderThanTheRememberedBatchesIsADuplicateWithAnUnknownOffset() {
        assertThat(SequenceCheck.isBehind(new ProducerState(1, (short) 0, 100, 199), 999)).isTrue();
        assertThat(SequenceCheck.isBehind(new ProducerState(1, (short) 0, 1000, 1099), 999)).isFalse();
        assertThat(SequenceCheck.isBehind(new ProducerState(1, (short) 0, 1001, 1099), 999)).isFalse();
        // Near the wrap from Integer.MAX_VALUE to 0.
        assertThat(SequenceCheck.isBehind(new ProducerState(1, (short) 0, Integer.MAX_VALUE - 9, Integer.MAX_VALUE), 5))
                .isTrue();
        assertThat(new SequenceCheck.Duplicate(AppendResult.Duplicate.UNKNOWN_OFFSET).baseOffset()).isEqualTo(-1);
    }

    @Test
    void aSequenceAheadOfTheLastStoredOneIsNotBehind() {
        assertThat(SequenceCheck.nextSequence(Integer.MAX_VALUE)).isZero();
        assertThat(SequenceCheck.isBehind(new ProducerState(1, (short) 0, 2000, 2099), 999)).isFalse();
    }
}
