package io.floe.maintenance;

import io.floe.core.lease.LeaseLoop;
import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.Leases;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Job} in its {@link LeaseLoop}, when this agent holds (or can take) its lease, with the
 * job's metrics. The lease only keeps agents from doing the same work twice; the job's transactions
 * are what keep data safe, so a run that outlives its lease does no harm.
 */
final class LeasedJob implements Runnable {

    private static final Logger LOGGER = LoggerFactory.getLogger(LeasedJob.class);

    private final Job job;
    private final String owner;
    private final Clock clock;
    private final LeaseLoop loop;
    private final Timer runs;
    private final Counter failures;
    private final Counter skipped;
    private final MeterRegistry meters;
    private final LeaseLoop.Rounds rounds = new LeaseLoop.Rounds() {
        @Override
        public void run(JobLease lease, Instant now) {
            Timer.Sample running = Timer.start(meters);
            String summary = job.run(now);
            running.stop(runs);
            if (!summary.isEmpty()) {
                LOGGER.info("job run job={} {}", job.name(), summary);
            }
        }

        @Override
        public void taken(JobLease lease, boolean othersHeldSince) {
            LOGGER.info("took job lease job={} owner={} epoch={}", job.name(), owner, lease.epoch());
        }

        @Override
        public void notHeld(boolean wasHeld) {
            skipped.increment();
        }
    };

    LeasedJob(Job job, String owner, Leases metadata, Clock clock, Duration leaseTtl, MeterRegistry meters) {
        this.job = job;
        this.owner = owner;
        this.clock = clock;
        // Every scheduled round is due, so the lease is asked for each time: it is never renewed in between.
        this.loop = new LeaseLoop(job.name(), owner, metadata, leaseTtl, leaseTtl);
        this.meters = meters;
        this.runs = Timer.builder("floe.maintenance.runs")
                .tag("job", job.name())
                .description("Runs of a background job on this agent")
                .register(meters);
        this.failures = Counter.builder("floe.maintenance.failures")
                .tag("job", job.name())
                .description("Runs of a background job that failed")
                .register(meters);
        this.skipped = Counter.builder("floe.maintenance.skipped")
                .tag("job", job.name())
                .description("Rounds skipped because another agent holds the job's lease")
                .register(meters);
    }

    /** One scheduled round; never throws, so the schedule goes on. */
    @Override
    public synchronized void run() {
        try {
            loop.turn(clock.instant(), true, rounds);
        } catch (RuntimeException e) {
            failures.increment();
            LOGGER.warn("job run failed job={} owner={}: {}", job.name(), owner, e.toString(), e);
        }
    }

    /** Gives the lease up so another agent can take the job at once. */
    synchronized void release() {
        loop.release();
    }
}
