package io.floe.maintenance.cleanup;

import io.floe.core.metadata.ObjectDeletion;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.maintenance.Job;
import io.floe.maintenance.MaintenanceConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleanup round, in the order that keeps it safe:
 * <ol>
 *   <li>the sweep's fence: expire registrations older than the grace period and schedule committed
 *       objects no batch row points to, in one transaction (a late commit into an expired
 *       registration is rejected);</li>
 *   <li>delete the objects whose scheduled time has come, then forget their schedule rows (a crash in
 *       between deletes again, harmlessly);</li>
 *   <li>every {@value #LISTING_EVERY} rounds, list the segment prefix and delete objects older than the
 *       grace period that no row knows at all (uploaded after their registration expired by an agent
 *       that then died): without a registration they can never be committed.</li>
 * </ol>
 */
public final class ObjectCleanup implements Job {

    public static final String NAME = "object-cleanup";
    static final int LISTING_EVERY = 10;
    private static final String SEGMENT_PREFIX = "segments/";
    private static final int DELETIONS_PER_ROUND = 1000;
    private static final Logger LOGGER = LoggerFactory.getLogger(ObjectCleanup.class);

    private final MaintenanceConfig config;
    private final ObjectLifecycle metadata;
    private final ObjectStore objects;
    private final Counter scheduled;
    private final Counter deleted;
    private final Counter unknownDeleted;
    private final Counter deleteFailures;
    private int rounds;

    public ObjectCleanup(
            MaintenanceConfig config, ObjectLifecycle metadata, ObjectStore objects, MeterRegistry meters) {
        this.config = config;
        this.metadata = metadata;
        this.objects = objects;
        this.scheduled = Counter.builder("floe.cleanup.objects.scheduled")
                .description("Orphaned or unreferenced objects scheduled for deletion by the sweep")
                .register(meters);
        this.deleted = Counter.builder("floe.cleanup.objects.deleted")
                .description("Scheduled objects deleted from the object store")
                .register(meters);
        this.unknownDeleted = Counter.builder("floe.cleanup.objects.unknown.deleted")
                .description("Objects no metadata row knew, deleted after the grace period")
                .register(meters);
        this.deleteFailures = Counter.builder("floe.cleanup.delete.failures")
                .description("Object deletions that failed (retried next round)")
                .register(meters);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String run(Instant now) {
        int swept = metadata.scheduleUnreferenced(
                now.minus(config.orphanGrace()), now, now.plus(config.objectDeleteDelay()));
        scheduled.increment(swept);
        int removed = deleteDue(now);
        int unknown = rounds++ % LISTING_EVERY == 0 ? deleteUnknown(now) : 0;
        return swept + removed + unknown == 0
                ? ""
                : "scheduled=" + swept + " deleted=" + removed + " unknownDeleted=" + unknown;
    }

    private int deleteDue(Instant now) {
        List<ObjectKey> done = new ArrayList<>();
        for (ObjectDeletion deletion : metadata.dueDeletions(now, DELETIONS_PER_ROUND)) {
            try {
                objects.delete(deletion.key());
                done.add(deletion.key());
                LOGGER.debug("deleted object={} reason={}", deletion.key(), deletion.reason());
            } catch (ObjectStoreException e) {
                deleteFailures.increment();
                LOGGER.warn("cannot delete object={} reason={}: {}", deletion.key(), deletion.reason(), e.getMessage());
            }
        }
        metadata.forgetDeletions(done);
        deleted.increment(done.size());
        return done.size();
    }

    private int deleteUnknown(Instant now) {
        Instant olderThan = now.minus(config.orphanGrace());
        List<ObjectKey> old = new ArrayList<>();
        for (ObjectInfo info : objects.list(SEGMENT_PREFIX)) {
            if (info.lastModified().isBefore(olderThan)) {
                old.add(info.key());
            }
        }
        Set<ObjectKey> unknown = metadata.unknownObjects(old);
        for (ObjectKey key : unknown) {
            objects.delete(key);
            LOGGER.info("deleted object no metadata row knows object={}", key);
        }
        unknownDeleted.increment(unknown.size());
        return unknown.size();
    }
}
