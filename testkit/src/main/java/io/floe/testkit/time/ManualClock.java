package io.floe.testkit.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A UTC clock that moves only when the test steps it, so leases, expirations and timeouts run on
 * virtual time. Safe to read from other threads; stepped by the test's own.
 */
public final class ManualClock extends Clock {

    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    /** Starts at 2026-12-01T00:00:00Z. */
    public ManualClock() {
        this(Instant.parse("2026-12-01T00:00:00Z"));
    }

    public void step(Duration duration) {
        now = now.plus(duration);
    }

    public void set(Instant instant) {
        now = instant;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the manual clock is UTC only");
    }

    @Override
    public Instant instant() {
        return now;
    }
}
