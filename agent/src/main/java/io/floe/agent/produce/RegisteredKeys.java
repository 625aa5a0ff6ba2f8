package io.floe.agent.produce;

import io.floe.core.metadata.LogAppends;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectKeys;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Object keys registered in the metadata store ahead of use, so that a sealed flush does not wait for
 * its registration transaction (step 3 of the produce protocol stays first: a key is registered
 * before anything is uploaded under it). A reserved key older than {@code maxAge} is dropped, not
 * used: the orphan sweep may expire old registrations, and an upload under an expired one would be
 * refused at commit. A dropped key's registration is left for the sweep (no object exists for it).
 */
final class RegisteredKeys {

    private static final Logger LOGGER = LoggerFactory.getLogger(RegisteredKeys.class);

    private final ObjectKeys keys;
    private final LogAppends metadata;
    private final String agentId;
    private final Clock clock;
    private final Executor executor;
    private final int reserve;
    private final long maxAgeMillis;
    private final ConcurrentLinkedDeque<Reserved> ready = new ConcurrentLinkedDeque<>();
    private final AtomicBoolean refilling = new AtomicBoolean();

    RegisteredKeys(
            ObjectKeys keys,
            LogAppends metadata,
            String agentId,
            Clock clock,
            Executor executor,
            int reserve,
            Duration maxAge) {
        this.keys = keys;
        this.metadata = metadata;
        this.agentId = agentId;
        this.clock = clock;
        this.executor = executor;
        this.reserve = reserve;
        this.maxAgeMillis = maxAge.toMillis();
    }

    /** A registered key never handed out before; registers one on the spot when none is reserved. */
    ObjectKey take() {
        ObjectKey key = null;
        for (Reserved reserved = ready.pollFirst(); reserved != null && key == null; ) {
            if (clock.millis() - reserved.registeredAtMillis < maxAgeMillis) {
                key = reserved.key;
            } else {
                reserved = ready.pollFirst();
            }
        }
        refillLater();
        return key != null ? key : register().key;
    }

    private Reserved register() {
        ObjectKey key = keys.next();
        long now = clock.millis();
        metadata.registerUpload(key, agentId, clock.instant());
        return new Reserved(key, now);
    }

    /** Refills once half the reserve is used, so registrations go to the store in batches. */
    private void refillLater() {
        if (ready.size() > reserve / 2 || !refilling.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(this::refill);
        } catch (RejectedExecutionException closing) {
            refilling.set(false);
        }
    }

    private void refill() {
        try {
            int missing = reserve - ready.size();
            if (missing > 0) {
                List<ObjectKey> fresh = new ArrayList<>(missing);
                for (int i = 0; i < missing; i++) {
                    fresh.add(keys.next());
                }
                long now = clock.millis();
                metadata.registerUploads(fresh, agentId, clock.instant());
                fresh.forEach(key -> ready.addLast(new Reserved(key, now)));
            }
        } catch (RuntimeException e) {
            LOGGER.warn("Could not reserve object keys agentId={}: {}", agentId, e.toString());
        } finally {
            refilling.set(false);
        }
    }

    private record Reserved(ObjectKey key, long registeredAtMillis) {}
}
