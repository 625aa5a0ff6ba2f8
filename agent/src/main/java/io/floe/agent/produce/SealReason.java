package io.floe.agent.produce;

import java.util.Locale;

/** What sealed a flush, for its metric. */
enum SealReason {
    /** It held the flush's maximum bytes. */
    SIZE,
    /** Its first batch was a flush interval old. */
    INTERVAL,
    /** Every connection with unanswered produce requests could send no more before an answer. */
    PRODUCERS_WAITING,
    /** The agent is stopping. */
    SHUTDOWN;

    String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
