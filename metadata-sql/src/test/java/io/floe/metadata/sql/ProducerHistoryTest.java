package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProducerHistoryTest {

    @Test
    void recentBatchesSurviveEncoding() {
        ProducerHistory history = new ProducerHistory(
                (short) 3, 0, 41, List.of(new RecentBatch(0, 9, 100), new RecentBatch(10, 41, Long.MAX_VALUE - 1)));

        ProducerHistory decoded = ProducerHistory.decode((short) 3, 0, 41, history.encodeRecent());

        assertThat(decoded.encodeRecent()).isEqualTo("0:9:100;10:41:" + (Long.MAX_VALUE - 1));
        assertThat(decoded.find(10, 41)).contains(new RecentBatch(10, 41, Long.MAX_VALUE - 1));
        assertThat(decoded.find(10, 40)).isEmpty();
        assertThat(ProducerHistory.decode((short) 0, -1, -1, "").encodeRecent()).isEmpty();
    }

    @Test
    void keepsTheLastFiveBatchesOfTheCurrentEpoch() {
        ProducerHistory history = ProducerHistory.fresh((short) 0);
        for (int sequence = 0; sequence < 7; sequence++) {
            history.record((short) 0, new RecentBatch(sequence, sequence, sequence));
        }

        assertThat(history.find(1, 1)).isEmpty();
        assertThat(history.find(2, 2)).isPresent();
        assertThat(history.firstSequence()).isZero();
        assertThat(history.lastSequence()).isEqualTo(6);
        assertThat(history.changed()).isTrue();

        history.record((short) 1, new RecentBatch(0, 4, 7));

        assertThat(history.epoch()).isEqualTo((short) 1);
        assertThat(history.firstSequence()).isZero();
        assertThat(history.stored(5, 6)).isFalse();
        assertThat(history.encodeRecent()).isEqualTo("0:4:7");
    }
}
