package io.floe.maintenance;

import java.time.Instant;

/** One background job's run: does a bounded amount of work and returns. Runs under the job's lease. */
public interface Job {

    /** The lease's name; one holder at a time in the whole cluster. */
    String name();

    /** Does one round of work as of {@code now}; returns a one-line summary for the log. */
    String run(Instant now);
}
