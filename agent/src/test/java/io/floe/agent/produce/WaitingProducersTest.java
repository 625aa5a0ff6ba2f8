package io.floe.agent.produce;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WaitingProducersTest {

    private final WaitingProducers producers = new WaitingProducers();

    /** The counts alone: the windows' calls into a pipeline are not used here. */
    private static ProducerWindow window() {
        return new ProducerWindow(null);
    }

    @Test
    void nobodyWaitsWhileNoRequestIsUnanswered() {
        ProducerWindow idle = window();
        assertThat(producers.allWaiting()).isFalse();

        producers.buffered(idle);
        producers.answered(idle);

        assertThat(producers.allWaiting())
                .as("a connection with nothing unanswered does not wait")
                .isFalse();
    }

    @Test
    void aConnectionWaitsOnceItHasAsManyUnansweredAsItEverHad() {
        ProducerWindow producer = window();
        producers.buffered(producer);
        producers.buffered(producer);
        producers.buffered(producer);
        assertThat(producers.allWaiting())
                .as("each new most is reached at once")
                .isTrue();

        producers.answered(producer);
        assertThat(producers.allWaiting()).as("2 of 3: it may send one more").isFalse();

        producers.buffered(producer);
        assertThat(producers.allWaiting()).as("back at its most").isTrue();

        producers.answered(producer);
        producers.answered(producer);
        producers.answered(producer);
        assertThat(producers.allWaiting()).isFalse();
        producers.buffered(producer);
        assertThat(producers.allWaiting())
                .as("1 of 3 after going idle: its most is remembered")
                .isFalse();
    }

    @Test
    void oneConnectionThatMayStillSendHoldsTheFlushForAll() {
        ProducerWindow busy = window();
        ProducerWindow slow = window();
        producers.buffered(slow);
        producers.buffered(slow);
        producers.answered(slow);
        producers.buffered(busy);
        assertThat(producers.allWaiting()).as("slow has 1 of 2 unanswered").isFalse();

        producers.buffered(slow);
        assertThat(producers.allWaiting()).isTrue();

        producers.answered(slow);
        producers.answered(slow);
        assertThat(producers.allWaiting()).as("slow is idle, busy still waits").isTrue();
    }

    @Test
    void aClosedConnectionNoLongerCountsAndItsLateAnswersAreIgnored() {
        ProducerWindow closing = window();
        ProducerWindow other = window();
        producers.buffered(closing);
        producers.buffered(closing);
        producers.answered(closing);
        producers.buffered(other);
        assertThat(producers.allWaiting()).isFalse();

        producers.closed(closing);
        assertThat(producers.allWaiting())
                .as("a closed connection sends nothing more")
                .isTrue();

        producers.answered(closing);
        producers.buffered(closing);
        producers.closed(closing);
        assertThat(producers.allWaiting()).isTrue();
        producers.answered(other);
        assertThat(producers.allWaiting()).isFalse();
    }

    @Test
    void anAnswerWithoutABufferedRequestChangesNothing() {
        ProducerWindow producer = window();
        producers.answered(producer);
        producers.buffered(producer);
        assertThat(producers.allWaiting()).isTrue();
    }
}
