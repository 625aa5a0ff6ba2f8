package io.floe.maintenance.leases;

import io.floe.core.metadata.AgentMembership;
import io.floe.core.metadata.Leases;
import io.floe.maintenance.Job;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;

/**
 * One round of lease expiry: forgets the job leases nobody held for {@link #LEASES_KEPT} (and released
 * ones nobody took again) and the
 * membership rows of agents silent for {@link #AGENTS_KEPT}, at most {@link #PER_ROUND} of each, found
 * through indexes on their expiry and heartbeat, so a round costs what is due. A job lease taken again
 * under a forgotten name starts above every epoch the name had ({@link Leases#expireLeases}): Tableflow's
 * tables record their lease epoch and refuse lower ones. An agent that heartbeats after its row went is
 * registered afresh.
 */
public final class LeaseExpiry implements Job {

    public static final String NAME = "lease-expiry";

    /** A job lease unheld this long belongs to a job that no longer runs (every running job renews within a minute). */
    static final Duration LEASES_KEPT = Duration.ofDays(7);
    /** An agent silent this long was killed (a live one heartbeats every second; a stopped one removes its row). */
    static final Duration AGENTS_KEPT = Duration.ofDays(1);
    /** Rows of each kind forgotten at most per round; the rest stay due for the next. */
    static final int PER_ROUND = 1_000;

    private final Leases leases;
    private final AgentMembership membership;
    private final Counter leasesExpired;
    private final Counter agentsExpired;

    public LeaseExpiry(Leases leases, AgentMembership membership, MeterRegistry meters) {
        this.leases = leases;
        this.membership = membership;
        this.leasesExpired = Counter.builder("floe.job.leases.expired")
                .description("Job leases forgotten after a week unheld (jobs that no longer run)")
                .register(meters);
        this.agentsExpired = Counter.builder("floe.agents.expired")
                .description("Membership rows of agents forgotten after a day without a heartbeat (killed agents)")
                .register(meters);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String run(Instant now) {
        int jobLeases = leases.expireLeases(now.minus(LEASES_KEPT), PER_ROUND);
        leasesExpired.increment(jobLeases);
        int agents = membership.expireAgents(now.minus(AGENTS_KEPT), PER_ROUND);
        agentsExpired.increment(agents);
        return "jobLeases=" + jobLeases + " agents=" + agents;
    }
}
