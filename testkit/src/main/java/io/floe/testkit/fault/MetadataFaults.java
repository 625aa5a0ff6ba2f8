package io.floe.testkit.fault;

import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectCommit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

/**
 * Fault-injecting decorators of {@link MetadataStore}, on {@link ForwardingMetadataStore}: every method
 * not named here passes through to the real store unchanged.
 */
public final class MetadataFaults {

    private MetadataFaults() {}

    /**
     * A store whose commits numbered {@code n} (1, 2, 3, ... in call order) for which
     * {@code unknownAfterApply} holds are applied and then reported as {@link CommitOutcome.Unknown}:
     * the "it committed, but the caller saw a timeout" case that idempotent retries must resolve.
     */
    public static MetadataStore commitsAppliedButReportedUnknown(MetadataStore store, IntPredicate unknownAfterApply) {
        AtomicInteger commits = new AtomicInteger();
        return new ForwardingMetadataStore(store) {
            @Override
            public CommitOutcome commit(ObjectCommit commit) {
                CommitOutcome outcome = super.commit(commit);
                if (outcome instanceof CommitOutcome.Committed && unknownAfterApply.test(commits.incrementAndGet())) {
                    return new CommitOutcome.Unknown(new TimeoutException("injected: commit applied, response lost"));
                }
                return outcome;
            }
        };
    }

    /**
     * A store whose commits numbered {@code n} (1, 2, 3, ... in call order) for which {@code fails} holds
     * throw an {@link AssertionError} instead of committing: an {@link Error}, which callers that catch
     * only exceptions let through.
     */
    public static MetadataStore commitsThrowingErrors(MetadataStore store, IntPredicate fails) {
        AtomicInteger commits = new AtomicInteger();
        return new ForwardingMetadataStore(store) {
            @Override
            public CommitOutcome commit(ObjectCommit commit) {
                if (fails.test(commits.incrementAndGet())) {
                    throw new AssertionError("injected: an Error while committing");
                }
                return super.commit(commit);
            }
        };
    }

    /**
     * A store whose {@link MetadataStore#logRewrites() log rewrites counter} cannot be read while
     * {@code unreadable} holds: an agent then cannot learn that batches it indexed have moved.
     */
    public static MetadataStore logRewritesUnreadable(MetadataStore store, BooleanSupplier unreadable) {
        return new ForwardingMetadataStore(store) {
            @Override
            public long logRewrites() {
                if (unreadable.getAsBoolean()) {
                    throw new MetadataStoreException("injected: log rewrites counter unreadable", true, null);
                }
                return super.logRewrites();
            }
        };
    }

    /**
     * A store whose agent heartbeats (both forms), while {@code hold} holds, wait until {@code release}
     * opens (at most a minute), counting {@code held} down as each starts waiting: a metadata store that has
     * stopped answering the periodic housekeeping writes.
     */
    public static MetadataStore heartbeatsHeld(
            MetadataStore store, BooleanSupplier hold, CountDownLatch held, CountDownLatch release) {
        return new ForwardingMetadataStore(store) {
            @Override
            protected <T> T call(MetadataOperation operation, Supplier<T> call) {
                boolean heartbeat = operation == MetadataOperation.HEARTBEAT_AGENT
                        || operation == MetadataOperation.HEARTBEAT_AGENT_RENEWING;
                if (heartbeat && hold.getAsBoolean()) {
                    held.countDown();
                    try {
                        if (!release.await(1, TimeUnit.MINUTES)) {
                            throw new MetadataStoreException("injected: heartbeat held for a minute", true, null);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new MetadataStoreException("interrupted while a heartbeat was held", true, e);
                    }
                }
                return call.get();
            }
        };
    }
}
