package io.floe.maintenance;

import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.Leases;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Job} when this agent holds (or can take) its lease. The lease only keeps agents from
 * doing the same work twice; the job's transactions are what keep data safe, so a run that outlives
 * its lease does no harm.
 */
final class LeasedJob implements Runnable {

    private static final Logger LOGGER = LoggerFactory.getLogger(LeasedJob.class);

    private final Job job;
    private final String owner;
    private final Leases metadata;
    private final Clock clock;
    private final Duration leaseTtl;
    private final Timer runs;
    private final Counter failures;
    private final Counter skipped;
    private final MeterRegistry meters;
    private JobLease lease;

    LeasedJob(Job job, String owner, Leases metadata, Clock clock, Duration leaseTtl, MeterRegistry meters) {
        this.job = job;
        this.owner = owner;
        this.metadata = metadata;
        this.clock = clock;
        this.leaseTtl = leaseTtl;
        this.meters = meters;
        this.runs = Timer.builder("floe.maintenance.runs").tag("job", job.name())
                .description("Runs of a background job on this agent").register(meters);
        this.failures = Counter.builder("floe.maintenance.failures").tag("job", job.name())
                .description("Runs of a background job that failed").register(meters);
        this.skipped = Counter.builder("floe.maintenance.skipped").tag("job", job.name())
                .description("Rounds skipped because another agent holds the job's lease").register(meters);
    }

    /** One scheduled round; never throws, so the schedule goes on. */
    @Override
    public synchronized void run() {
        try {
            Instant now = clock.instant();
            Optional<JobLease> held = metadata.acquireLease(job.name(), owner, now, leaseTtl);
            if (held.isEmpty()) {
                skipped.increment();
                lease = null;
                return;
            }
            if (lease == null || lease.epoch() != held.get().epoch()) {
                LOGGER.info("took job lease job={} owner={} epoch={}", job.name(), owner, held.get().epoch());
            }
            lease = held.get();
            Timer.Sample running = Timer.start(meters);
            String summary = job.run(now);
            running.stop(runs);
            if (!summary.isEmpty()) {
                LOGGER.info("job run job={} {}", job.name(), summary);
            }
        } catch (RuntimeException e) {
            failures.increment();
            LOGGER.warn("job run failed job={} owner={}: {}", job.name(), owner, e.toString(), e);
        }
    }

    /** Gives the lease up so another agent can take the job at once. */
    synchronized void release() {
        if (lease != null) {
            try {
                metadata.releaseLease(lease);
            } catch (RuntimeException e) {
                LOGGER.debug("could not release lease job={}: {}", job.name(), e.toString());
            }
            lease = null;
        }
    }
}
