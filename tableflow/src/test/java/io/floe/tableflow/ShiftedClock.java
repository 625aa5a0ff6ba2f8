package io.floe.tableflow;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system's UTC clock moved forward by whatever the test {@link #step}s it: time still runs (real
 * clients, timeouts and polls keep working) and a quiet week passes in an instant.
 */
final class ShiftedClock extends Clock {

    private volatile Duration shift = Duration.ZERO;

    void step(Duration duration) {
        shift = shift.plus(duration);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the shifted clock is UTC only");
    }

    @Override
    public Instant instant() {
        return Instant.now().plus(shift);
    }
}
