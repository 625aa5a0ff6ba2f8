package io.floe.simulation;

import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * One simulated process's view of the shared metadata store, with faults (see {@link Faults}). A
 * commit whose response is lost answers {@link CommitOutcome.Unknown}, as the SQL store does when the
 * connection breaks after the statement was sent; other calls throw a retriable
 * {@link MetadataStoreException}.
 */
final class FaultyMetadataStore {

    /** The methods that only read. Everything else changes the store. */
    private static final Set<String> READS = Set.of("topic", "topics", "offsets", "batches", "firstBatchAtOrAfter",
            "batchWithMaxTimestamp", "producers", "partitionSizes", "committedOffsets", "offsetGroups",
            "liveAgents", "smallObjects", "batchesIn", "retentionHolds", "dueDeletions", "unknownObjects",
            "storageStats", "referenceMismatches");
    private static final Set<String> LOCAL = Set.of("describe", "close", "toString", "hashCode", "equals");

    private FaultyMetadataStore() {}

    /** Whether {@code method} of {@link MetadataStore} may change the store. */
    static boolean mutates(Method method) {
        return !READS.contains(method.getName()) && !LOCAL.contains(method.getName());
    }

    /** The calls that can change what the checker looks at: markers, batch rows, objects' rows. */
    private static final Set<String> LOG_CHANGES = Set.of("commit", "rewrite", "truncateLog", "deleteRecords",
            "scheduleUnreferenced", "forgetDeletions", "createTopic", "deleteTopic", "createPartitions");

    /**
     * The shared store as the checker sees it: every call passes through, and {@code onMutation} runs
     * after each call that may have changed the log (not heartbeats, leases, holds or registrations), so
     * the checker looks only when there is news.
     */
    static MetadataStore observed(MetadataStore store, Runnable onMutation) {
        return (MetadataStore) Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, (proxy, method, args) -> {
                    try {
                        return invoke(store, method, args);
                    } finally {
                        if (LOG_CHANGES.contains(method.getName())) {
                            onMutation.run();
                        }
                    }
                });
    }

    static MetadataStore wrap(MetadataStore store, StoreCalls calls) {
        return (MetadataStore) Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, (proxy, method, args) -> {
                    if (LOCAL.contains(method.getName())) {
                        return method.getName().equals("close") ? null : invoke(store, method, args);
                    }
                    boolean commit = method.getName().equals("commit");
                    return calls.call(mutates(method), () -> invoke(store, method, args),
                            () -> new MetadataStoreException("injected: " + method.getName() + " failed", true, null),
                            commit ? () -> new CommitOutcome.Unknown(
                                    new TimeoutException("injected: commit applied, response lost")) : null);
                });
    }

    private static Object invoke(MetadataStore store, Method method, Object[] args) {
        try {
            return method.invoke(store, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
