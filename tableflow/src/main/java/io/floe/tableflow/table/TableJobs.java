package io.floe.tableflow.table;

import io.floe.core.lease.LeaseLoop;
import io.floe.core.metadata.JobLease;
import io.floe.core.topic.Topic;
import io.floe.tableflow.TableflowConfig;
import io.floe.tableflow.TableflowMetadata;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.delta.DeltaMetrics;
import io.floe.tableflow.delta.DeltaMirror;
import io.floe.tableflow.delta.DeltaRetirement;
import io.floe.tableflow.maintenance.CompactionOutcome;
import io.floe.tableflow.maintenance.TableMaintenance;
import io.floe.tableflow.source.CommittedLog;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables this agent may materialize, each with its schedule and lease. One thread {@link #poll polls}:
 * it runs the rounds that are due, at most for the poll budget, then leaves the other tables for the next
 * poll, which starts with them. Another thread {@link #renewLeases renews} the leases held, on a schedule
 * of its own that no round holds up. Every round's commits are fenced by the epoch of the lease it began
 * under ({@link LeaseFence}), so a round that outlives its lease commits nothing.
 */
public final class TableJobs {

    private static final Logger LOGGER = LoggerFactory.getLogger(TableJobs.class);

    private final TableflowConfig config;
    private final String agentId;
    private final TableflowMetadata metadata;
    private final CommittedLog log;
    private final TableCatalog catalog;
    private final Clock clock;
    private final MeterRegistry meters;
    private final CommitFollower follower;
    private final KeyIndexBudget keyIndexes;
    /** Written by the polling thread, read by the renewing one. */
    private final Map<String, Scheduled> jobs = new ConcurrentHashMap<>();

    private final Map<String, String> reportedProblems = new HashMap<>();

    /** Every this many polls, topics whose table was turned off give up any retention hold left behind. */
    private static final int HOLD_SWEEP_POLLS = 60;

    private long polls;
    /** The last topic a poll that ran out of its budget ran: the next poll starts after it; null: at the first. */
    private String stoppedAfter;
    /** A failed renewal was logged; logged again only once renewals succeeded in between. */
    private volatile boolean renewalFailureLogged;

    public TableJobs(
            TableflowConfig config,
            String agentId,
            TableflowMetadata metadata,
            CommittedLog log,
            TableCatalog catalog,
            Clock clock,
            MeterRegistry meters) {
        this(config, agentId, metadata, log, catalog, clock, meters, CommitFollower.NONE);
    }

    /** With {@code follower} told of each table's rounds and lease (the change topics). */
    public TableJobs(
            TableflowConfig config,
            String agentId,
            TableflowMetadata metadata,
            CommittedLog log,
            TableCatalog catalog,
            Clock clock,
            MeterRegistry meters,
            CommitFollower follower) {
        this.config = config;
        this.agentId = agentId;
        this.metadata = metadata;
        this.log = log;
        this.catalog = catalog;
        this.clock = clock;
        this.meters = meters;
        this.follower = follower;
        this.keyIndexes = new KeyIndexBudget(config.upsertIndexBytes(), meters);
    }

    /** One table job with when it runs next and the loop of its lease. */
    private static final class Scheduled {
        final TableJob job;
        final TableMetrics metrics;
        final TableMaintenance maintenance;
        final DeltaMirror delta;
        final StallWatch stall;
        final LeaseLoop lease;
        Instant nextRun = Instant.MIN;
        Instant caughtUpAt;

        Scheduled(
                TableJob job,
                TableMetrics metrics,
                TableMaintenance maintenance,
                DeltaMirror delta,
                StallWatch stall,
                LeaseLoop lease,
                Instant now) {
            this.job = job;
            this.metrics = metrics;
            this.maintenance = maintenance;
            this.delta = delta;
            this.stall = stall;
            this.lease = lease;
            this.caughtUpAt = now;
        }
    }

    /**
     * Runs the rounds that are due, in the order of the topics' names from where the last poll stopped,
     * until the poll budget is spent: the tables it did not get to are first in the next poll. Never
     * throws, so the schedule goes on.
     */
    public synchronized void poll() {
        try {
            Set<String> enabled = new HashSet<>();
            boolean sweepHolds = polls++ % HOLD_SWEEP_POLLS == 0;
            Instant started = clock.instant();
            String stoppedAt = null;
            for (Topic topic : inTurn(metadata.topics().topics())) {
                Optional<TableSettings> settings = settings(topic).filter(TableSettings::enabled);
                if (settings.isPresent()) {
                    enabled.add(topic.name());
                    if (stoppedAt == null) {
                        runIfDue(topic, settings.get());
                        if (!clock.instant().isBefore(started.plus(config.pollBudget()))) {
                            stoppedAt = topic.name();
                        }
                    }
                }
                // A table turned off while its agent was down: whichever agent sees it releases the hold.
                if (sweepHolds && "false".equalsIgnoreCase(topic.configs().get(TableflowConfigs.ENABLED))) {
                    releaseRetention(topic.name());
                    follower.removed(topic.name());
                }
            }
            stoppedAfter = stoppedAt;
            jobs.keySet().removeIf(name -> {
                if (!enabled.contains(name)) {
                    stop(jobs.get(name));
                    follower.released(name);
                    releaseRetention(name);
                    follower.removed(name);
                    LOGGER.info("tableflow stopped for topic={} (disabled or deleted)", name);
                    return true;
                }
                return false;
            });
        } catch (RuntimeException e) {
            LOGGER.warn("tableflow poll failed: {}", e.toString(), e);
        }
    }

    /** The topics by name, from the one after the last a poll that ran out of its budget ran, round to it. */
    private List<Topic> inTurn(Collection<Topic> topics) {
        List<Topic> sorted = new ArrayList<>(topics);
        sorted.sort(Comparator.comparing(Topic::name));
        int first = 0;
        while (stoppedAfter != null
                && first < sorted.size()
                && sorted.get(first).name().compareTo(stoppedAfter) <= 0) {
            first++;
        }
        List<Topic> turn = new ArrayList<>(sorted.subList(first, sorted.size()));
        turn.addAll(sorted.subList(0, first));
        return turn;
    }

    /**
     * Renews every table lease this agent holds, from a thread of its own: a round that runs long (a
     * large upsert lookup, a compaction, a change topic's snapshot) holds up no other table's lease, and
     * its own is kept until the round has run for the round timeout. Talks only to the store; never
     * throws.
     */
    public void renewLeases() {
        Instant now = clock.instant();
        for (Map.Entry<String, Scheduled> entry : jobs.entrySet()) {
            try {
                entry.getValue().lease.renew(now, config.roundTimeout());
                renewalFailureLogged = false;
            } catch (RuntimeException e) {
                if (!renewalFailureLogged) {
                    renewalFailureLogged = true;
                    LOGGER.warn(
                            "cannot renew the table lease topic={}: {}; retried every {} ms while the lease runs",
                            entry.getKey(),
                            e.toString(),
                            config.leaseTtl().dividedBy(3).toMillis());
                }
            }
        }
    }

    private void runIfDue(Topic topic, TableSettings settings) {
        Instant now = clock.instant();
        Scheduled scheduled = jobs.computeIfAbsent(topic.name(), name -> {
            TableMetrics metrics = new TableMetrics(meters, name);
            return new Scheduled(
                    new TableJob(
                            name,
                            catalog,
                            metadata.reads(),
                            metadata.retention(),
                            log,
                            clock,
                            metrics,
                            config.maxBytesPerRound(),
                            keyIndexes),
                    metrics,
                    new TableMaintenance(
                            meters,
                            name,
                            config.maxBytesPerRound(),
                            () -> metadata.retention().retentionHolds(name)),
                    new DeltaMirror(new DeltaMetrics(meters, name), clock),
                    new StallWatch(name, config.stallTimeout(), metrics),
                    new LeaseLoop(
                            "tableflow/" + name,
                            agentId,
                            metadata.leases(),
                            config.leaseTtl(),
                            config.leaseTtl().dividedBy(3)),
                    now);
        });
        scheduled.metrics.behindFor(now.toEpochMilli() - scheduled.caughtUpAt.toEpochMilli());
        boolean due = !now.isBefore(scheduled.nextRun);
        // A held lease is renewed a few times per TTL even between rounds, so the table stays here; a
        // lease that is not held is asked for only when a round is due.
        scheduled.lease.turn(now, due, new LeaseLoop.Rounds() {
            @Override
            public void run(JobLease lease, Instant at) {
                round(topic, settings, scheduled, new LeaseFence(lease.job(), lease.epoch()), at);
            }

            @Override
            public void taken(JobLease lease, boolean othersHeldSince) {
                LOGGER.info("took table lease topic={} owner={} epoch={}", topic.name(), agentId, lease.epoch());
                follower.leaseTaken(topic.name());
                if (othersHeldSince) {
                    // Another agent ran (and may have advanced) the table meanwhile: this agent's earlier run of
                    // failures no longer says the table cannot advance.
                    scheduled.stall.reset();
                }
            }

            @Override
            public void notHeld(boolean wasHeld) {
                if (wasHeld) {
                    LOGGER.info("lost table lease topic={} owner={}", topic.name(), agentId);
                    follower.released(topic.name());
                    scheduled.job.close();
                }
                scheduled.stall.reset();
                scheduled.nextRun = now.plus(config.leaseTtl().dividedBy(3));
            }
        });
    }

    /** One round of the table's job, under its lease, and what follows from its outcome. */
    private void round(Topic topic, TableSettings settings, Scheduled scheduled, LeaseFence fence, Instant now) {
        try {
            // A Delta commit that a crash or failure skipped is completed before the round adds more.
            mirrorToDelta(topic, settings, scheduled, fence);
            TableJob.Outcome outcome = scheduled.job.run(topic, settings, fence);
            if (scheduled.stall.succeeded()) {
                catalog.clearStalled(topic.name());
            }
            if (outcome.lagRecords() == 0) {
                scheduled.caughtUpAt = now;
            }
            scheduled.metrics.lag(outcome.lagRecords(), clock.millis() - scheduled.caughtUpAt.toEpochMilli());
            scheduled.nextRun = outcome.moreWaiting() ? now : now.plus(settings.commitInterval());
            if (outcome.committed()) {
                LOGGER.info(
                        "table round topic={} records={} deadLetters={} files={} lagRecords={}",
                        topic.name(),
                        outcome.records(),
                        outcome.deadLetters(),
                        outcome.dataFiles(),
                        outcome.lagRecords());
            }
            if (outcome.committed()) {
                mirrorToDelta(topic, settings, scheduled, fence);
            }
            if (maintain(topic, settings, scheduled.maintenance, fence, outcome.committed())) {
                mirrorToDelta(topic, settings, scheduled, fence);
            }
            if (follower.follow(topic, outcome.committed())) {
                scheduled.nextRun = now;
            }
        } catch (CommitFailedException e) {
            scheduled.metrics.conflict();
            scheduled.nextRun = now.plus(settings.commitInterval());
        } catch (RuntimeException e) {
            scheduled.metrics.failed();
            scheduled.nextRun = now.plus(settings.commitInterval());
            LOGGER.warn("table round failed topic={}: {}", topic.name(), e.toString(), e);
            stalled(topic, scheduled, now, e);
        }
    }

    /**
     * A failed round's part in a stall: once the rounds have failed for the stall timeout the table is
     * marked stalled and stops holding retention back, again after every failed round while it lasts
     * (a round that got as far as reading wrote the hold again).
     */
    private void stalled(Topic topic, Scheduled scheduled, Instant now, RuntimeException failure) {
        StallWatch.Change change = scheduled.stall.failed(now, failure);
        if (change == StallWatch.Change.NONE) {
            return;
        }
        // The round may have outlived the lease: a stall is the lease holder's to declare, and another agent
        // that took the table over (and may be advancing it) must keep its hold.
        if (scheduled.lease.othersHeldSince(clock.instant())) {
            LOGGER.info(
                    "table lease topic={} owner={} was another agent's during a failed round; not declaring a"
                            + " stall",
                    topic.name(),
                    agentId);
            scheduled.stall.reset();
            return;
        }
        if (change == StallWatch.Change.STALLED) {
            catalog.markStalled(topic.name(), scheduled.stall.description(failure));
        }
        try {
            scheduled.job.releaseRetention();
        } catch (RuntimeException e) {
            LOGGER.warn("cannot release the retention hold of stalled topic={}: {}", topic.name(), e.toString());
        }
    }

    /**
     * Maintenance of the topic's tables after a successful round, under the same lease; its own schedule
     * decides what is due. It reads at most a round's bytes, and its failures are not the round's. When
     * the round committed nothing and no interval came, the tables are not even loaded. Returns whether
     * it compacted the topic's table (a commit the Delta log follows).
     */
    private boolean maintain(
            Topic topic, TableSettings settings, TableMaintenance maintenance, LeaseFence fence, boolean changed) {
        if (!settings.maintenanceEnabled() || !changed && !maintenance.dueWithoutChanges(settings, clock.instant())) {
            return false;
        }
        boolean compacted = false;
        try {
            // Claimed (by the round, or now): a newer holder's claim refuses every commit of this maintenance.
            compacted = catalog.load(topic.name())
                    .map(fence::claim)
                    .map(table ->
                            maintenance.run(table, settings, clock.instant()).compaction()
                                    instanceof CompactionOutcome.Compacted)
                    .orElse(false);
            catalog.loadDeadLetters(topic.name())
                    .map(fence::claim)
                    .ifPresent(table -> maintenance.run(table, settings, clock.instant()));
        } catch (CommitFailedException e) {
            LOGGER.info("table maintenance skipped topic={}: {}", topic.name(), e.getMessage());
        } catch (RuntimeException e) {
            LOGGER.warn("table maintenance failed topic={}: {}", topic.name(), e.toString(), e);
        }
        return compacted;
    }

    /**
     * Brings the topic's Delta log up to its table, when it is published as Delta too (the dead-letter
     * table is not). Never throws: the mirror counts and logs its failures, and a failed load of the
     * table is retried with the next round.
     */
    private void mirrorToDelta(Topic topic, TableSettings settings, Scheduled scheduled, LeaseFence fence) {
        if (!settings.deltaEnabled()) {
            scheduled.delta.forget();
            return;
        }
        try {
            catalog.load(topic.name())
                    .filter(table -> DeltaRetirement.resume(fence.claim(table), clock.instant()))
                    .ifPresent(table -> scheduled.delta.sync(table, settings.snapshotRetention()));
        } catch (RuntimeException e) {
            LOGGER.warn("delta log not synced topic={}: {}; the next round tries again", topic.name(), e.toString());
        }
    }

    /** The topic's settings; a malformed one is logged once per distinct config and skipped. */
    private Optional<TableSettings> settings(Topic topic) {
        try {
            TableSettings settings = TableSettings.from(topic.configs());
            reportedProblems.remove(topic.name());
            return Optional.of(settings);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().equals(reportedProblems.put(topic.name(), e.getMessage()))) {
                LOGGER.warn("tableflow settings of topic={} are invalid: {}", topic.name(), e.getMessage());
            }
            return Optional.empty();
        }
    }

    /** A table that is off (or whose topic is gone) holds retention back no more. */
    private void releaseRetention(String topic) {
        try {
            metadata.retention().releaseRetention(RetentionHold.HOLDER, topic);
        } catch (RuntimeException e) {
            LOGGER.warn("cannot release the retention hold of topic={}: {}", topic, e.toString());
        }
    }

    /** Gives every lease up (on shutdown) so another agent takes the tables at once. */
    public synchronized void releaseAll() {
        jobs.forEach((name, scheduled) -> {
            stop(scheduled);
            follower.released(name);
        });
    }

    /** The agent's key index budget, shared by its upsert tables. */
    public KeyIndexBudget keyIndexes() {
        return keyIndexes;
    }

    private void stop(Scheduled scheduled) {
        scheduled.lease.release();
        scheduled.job.close();
    }
}
