package io.floe.tableflow;

import io.floe.core.concurrency.Concurrency;
import io.floe.core.config.InvalidConfigException;
import io.floe.core.object.ObjectStore;
import io.floe.tableflow.config.ChangesTopic;
import io.floe.tableflow.config.CompactedKeyColumns;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.ValueDecoder;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.CommitFollower;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.TableJobs;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's Tableflow service: on one thread, every poll interval, it finds the topics with
 * {@code floe.tableflow.enabled=true} and runs the rounds that are due, each under the table's lease
 * (so one agent at a time materializes a table; the table's own compare-and-swap commit, fenced by the
 * lease's epoch, is what keeps records exactly once). On another thread, a third of the lease TTL apart,
 * it renews the leases it holds, so that no round, however long, makes the agent's other tables lapse.
 */
public final class Tableflow implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(Tableflow.class);

    private final ScheduledExecutorService scheduler;
    private final ScheduledExecutorService renewals;
    private final TableJobs jobs;

    private Tableflow(ScheduledExecutorService scheduler, ScheduledExecutorService renewals, TableJobs jobs) {
        this.scheduler = scheduler;
        this.renewals = renewals;
        this.jobs = jobs;
    }

    /** Starts materializing tables on agent {@code agentId}; {@link #close()} stops and gives the leases up. */
    public static Tableflow start(
            TableflowConfig config,
            String agentId,
            TableflowMetadata metadata,
            ObjectStore objects,
            TableCatalog catalog,
            Clock clock,
            MeterRegistry meters) {
        return start(config, agentId, metadata, objects, catalog, clock, meters, Concurrency.threads());
    }

    /** As {@link #start(TableflowConfig, String, TableflowMetadata, ObjectStore, TableCatalog, Clock, MeterRegistry)}, on {@code concurrency}'s scheduler. */
    public static Tableflow start(
            TableflowConfig config,
            String agentId,
            TableflowMetadata metadata,
            ObjectStore objects,
            TableCatalog catalog,
            Clock clock,
            MeterRegistry meters,
            Concurrency concurrency) {
        return start(config, agentId, metadata, objects, catalog, clock, meters, concurrency, CommitFollower.NONE);
    }

    /** As above, with {@code follower} told of each table's rounds and lease (the change topics). */
    public static Tableflow start(
            TableflowConfig config,
            String agentId,
            TableflowMetadata metadata,
            ObjectStore objects,
            TableCatalog catalog,
            Clock clock,
            MeterRegistry meters,
            Concurrency concurrency,
            CommitFollower follower) {
        TableJobs jobs = new TableJobs(
                config,
                agentId,
                metadata,
                new CommittedLog(metadata.reads(), objects),
                catalog,
                clock,
                meters,
                follower);
        ScheduledExecutorService scheduler = concurrency.scheduler("floe-tableflow");
        long interval = config.pollInterval().toMillis();
        scheduler.scheduleWithFixedDelay(jobs::poll, interval, interval, TimeUnit.MILLISECONDS);
        ScheduledExecutorService renewals = concurrency.scheduler("floe-tableflow-leases");
        long renewEvery = Math.max(1, config.leaseTtl().dividedBy(3).toMillis());
        renewals.scheduleWithFixedDelay(jobs::renewLeases, renewEvery, renewEvery, TimeUnit.MILLISECONDS);
        LOGGER.info(
                "tableflow started agentId={} namespace={} catalog={}",
                agentId,
                config.namespace(),
                catalog.catalog().name());
        return new Tableflow(scheduler, renewals, jobs);
    }

    /**
     * Checks a topic's Tableflow configs as a whole (names, values, the declared schema against its
     * format, its field names against the metadata columns and the names engines reserve, an upsert
     * table's key columns against its fields and against a compacted topic's record keys);
     * {@link InvalidConfigException} with the user's message when they are bad. Registered with the
     * agent's topic configs, so CreateTopics and AlterConfigs answer INVALID_CONFIG at once.
     */
    public static void validate(Map<String, String> topicConfigs) {
        for (String name : topicConfigs.keySet()) {
            if (name.startsWith(TableflowConfigs.PREFIX)
                    && TableflowConfigs.DEFINITIONS.stream()
                            .noneMatch(def -> def.name().equals(name))) {
                throw new InvalidConfigException("Unknown Tableflow topic config " + name + "; known: "
                        + TableflowConfigs.DEFINITIONS.stream()
                                .map(TableflowConfigs.Definition::name)
                                .toList());
            }
        }
        try {
            // The table schema too: a value field named like a metadata column or a reserved name, or a key
            // column that is no required primitive field of the value, is refused here.
            TableSettings settings = TableSettings.from(topicConfigs);
            Rows.tableSchema(ValueDecoder.of(settings).valueType(), settings.upsertKeyColumns());
            ChangesTopic.from(topicConfigs);
            CompactedKeyColumns.check(topicConfigs);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException(e.getMessage());
        }
    }

    @Override
    public void close() {
        // A round in progress finishes (it is bounded); one that takes too long is interrupted, which is
        // safe: its commit either happened or did not, and the next owner resumes from the table.
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(20, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
                scheduler.awaitTermination(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            Thread.currentThread().interrupt();
        }
        // Renewed until the rounds stopped; given up right after.
        renewals.shutdownNow();
        jobs.releaseAll();
    }
}
