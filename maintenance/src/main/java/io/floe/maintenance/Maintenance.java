package io.floe.maintenance;

import io.floe.core.concurrency.Concurrency;
import io.floe.core.config.TopicConfigs;
import io.floe.core.metadata.Leases;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.metadata.StorageStats;
import io.floe.core.object.ObjectStore;
import io.floe.maintenance.cleanup.ObjectCleanup;
import io.floe.maintenance.compaction.SegmentCompaction;
import io.floe.maintenance.keys.KeyCompaction;
import io.floe.maintenance.leases.LeaseExpiry;
import io.floe.maintenance.producers.ProducerStateExpiry;
import io.floe.maintenance.producers.TransactionalIdExpiry;
import io.floe.maintenance.retention.Retention;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's background jobs: compaction, key compaction, retention, producer state, transactional id and
 * lease expiry, and cleanup, each on its own schedule under its lease. Compaction, retention and cleanup
 * share one thread (they are I/O-bound and
 * bounded per round; one thread keeps them from competing with the data path for the machine). Key
 * compaction has a thread of its own: a pass over a partition reads the partition's whole log, which
 * can take long, and must not hold up the deletions and retention behind it. Also publishes the
 * store's storage totals as gauges.
 */
public final class Maintenance implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(Maintenance.class);

    private final ScheduledExecutorService scheduler;
    private final ScheduledExecutorService keyScheduler;
    private final List<LeasedJob> jobs;
    private final AtomicReference<StorageStats> stats = new AtomicReference<>(new StorageStats(0, 0, 0, 0));

    private Maintenance(
            ScheduledExecutorService scheduler, ScheduledExecutorService keyScheduler, List<LeasedJob> jobs) {
        this.scheduler = scheduler;
        this.keyScheduler = keyScheduler;
        this.jobs = jobs;
    }

    /** Starts the jobs for the agent {@code agentId}; {@link #close()} stops them and gives their leases up. */
    public static Maintenance start(
            MaintenanceConfig config,
            String agentId,
            MaintenanceMetadata metadata,
            ObjectStore objects,
            TopicConfigs topicConfigs,
            Clock clock,
            MeterRegistry meters) {
        return start(config, agentId, metadata, objects, topicConfigs, clock, meters, Concurrency.threads());
    }

    /** As {@link #start(MaintenanceConfig, String, MaintenanceMetadata, ObjectStore, TopicConfigs, Clock, MeterRegistry)}, on {@code concurrency}'s schedulers. */
    public static Maintenance start(
            MaintenanceConfig config,
            String agentId,
            MaintenanceMetadata metadata,
            ObjectStore objects,
            TopicConfigs topicConfigs,
            Clock clock,
            MeterRegistry meters,
            Concurrency concurrency) {
        Leases leases = metadata.leases();
        LeasedJob compaction = new LeasedJob(
                new SegmentCompaction(config, metadata.appends(), metadata.objects(), objects, agentId, clock, meters),
                agentId,
                leases,
                clock,
                config.leaseTtl(),
                meters);
        LeasedJob retention = new LeasedJob(
                new Retention(config, metadata.topics(), metadata.reads(), metadata.retention(), topicConfigs, meters),
                agentId,
                leases,
                clock,
                config.leaseTtl(),
                meters);
        LeasedJob cleanup = new LeasedJob(
                new ObjectCleanup(config, metadata.objects(), objects, meters),
                agentId,
                leases,
                clock,
                config.leaseTtl(),
                meters);
        LeasedJob producerExpiry = new LeasedJob(
                new ProducerStateExpiry(metadata.retention(), config.producerIdExpiration(), meters),
                agentId,
                leases,
                clock,
                config.leaseTtl(),
                meters);
        LeasedJob transactionalIdExpiry = new LeasedJob(
                new TransactionalIdExpiry(metadata.transactions(), config.transactionalIdExpiration(), meters),
                agentId,
                leases,
                clock,
                config.leaseTtl(),
                meters);
        LeasedJob leaseExpiry = new LeasedJob(
                new LeaseExpiry(leases, metadata.membership(), meters),
                agentId,
                leases,
                clock,
                config.leaseTtl(),
                meters);
        LeasedJob keyCompaction = new LeasedJob(
                new KeyCompaction(config, metadata, objects, topicConfigs, agentId, clock, meters),
                agentId,
                leases,
                clock,
                config.leaseTtl(),
                meters);
        Maintenance maintenance = new Maintenance(
                concurrency.scheduler("floe-maintenance"),
                concurrency.scheduler("floe-key-compaction"),
                List.of(
                        compaction,
                        retention,
                        cleanup,
                        producerExpiry,
                        transactionalIdExpiry,
                        leaseExpiry,
                        keyCompaction));
        maintenance.keyScheduler.scheduleWithFixedDelay(
                keyCompaction,
                config.keyCompactionInterval().toMillis(),
                config.keyCompactionInterval().toMillis(),
                TimeUnit.MILLISECONDS);
        maintenance.every(config.compactionInterval(), compaction);
        maintenance.every(config.retentionInterval(), retention);
        maintenance.every(config.retentionInterval(), producerExpiry);
        maintenance.every(config.retentionInterval(), transactionalIdExpiry);
        maintenance.every(config.retentionInterval(), leaseExpiry);
        maintenance.every(config.cleanupInterval(), cleanup);
        maintenance.every(config.cleanupInterval(), () -> maintenance.refreshStats(metadata.objects()));
        maintenance.registerGauges(meters);
        LOGGER.info("maintenance started agentId={} config={}", agentId, config);
        return maintenance;
    }

    private void every(Duration interval, Runnable task) {
        scheduler.scheduleWithFixedDelay(task, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void refreshStats(ObjectLifecycle metadata) {
        try {
            stats.set(metadata.storageStats());
        } catch (RuntimeException e) {
            LOGGER.debug("cannot read storage stats: {}", e.toString());
        }
    }

    private void registerGauges(MeterRegistry meters) {
        Gauge.builder("floe.storage.objects", () -> stats.get().committedObjects())
                .description("Committed objects in the object store")
                .register(meters);
        Gauge.builder("floe.storage.bytes", () -> stats.get().committedBytes())
                .baseUnit("bytes")
                .description("Bytes of committed objects")
                .register(meters);
        Gauge.builder("floe.storage.objects.registered", () -> stats.get().registeredObjects())
                .description("Uploads registered and not committed yet")
                .register(meters);
        Gauge.builder("floe.storage.deletions.pending", () -> stats.get().pendingDeletions())
                .description("Objects scheduled for deletion")
                .register(meters);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        keyScheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
            keyScheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        jobs.forEach(LeasedJob::release);
    }
}
