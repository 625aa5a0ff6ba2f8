package io.floe.testkit.fault;

import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectCommit;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;

/**
 * Fault-injecting decorators of {@link MetadataStore}. Every method not named here passes through to
 * the real store unchanged.
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
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = invoke(store, method, args);
            if (isCommit(method) && result instanceof CommitOutcome.Committed
                    && unknownAfterApply.test(commits.incrementAndGet())) {
                return new CommitOutcome.Unknown(new TimeoutException("injected: commit applied, response lost"));
            }
            return result;
        };
        return (MetadataStore) Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, handler);
    }

    /**
     * A store whose commits numbered {@code n} (1, 2, 3, ... in call order) for which {@code fails} holds
     * throw an {@link AssertionError} instead of committing: an {@link Error}, which callers that catch
     * only exceptions let through.
     */
    public static MetadataStore commitsThrowingErrors(MetadataStore store, IntPredicate fails) {
        AtomicInteger commits = new AtomicInteger();
        InvocationHandler handler = (proxy, method, args) -> {
            if (isCommit(method) && fails.test(commits.incrementAndGet())) {
                throw new AssertionError("injected: an Error while committing");
            }
            return invoke(store, method, args);
        };
        return (MetadataStore) Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, handler);
    }

    /**
     * A store whose {@link MetadataStore#logRewrites() log rewrites counter} cannot be read while
     * {@code unreadable} holds: an agent then cannot learn that batches it indexed have moved.
     */
    public static MetadataStore logRewritesUnreadable(MetadataStore store, BooleanSupplier unreadable) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("logRewrites") && unreadable.getAsBoolean()) {
                throw new MetadataStoreException("injected: log rewrites counter unreadable", true, null);
            }
            return invoke(store, method, args);
        };
        return (MetadataStore) Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, handler);
    }

    /**
     * A store whose agent heartbeats, while {@code hold} holds, wait until {@code release} opens (at most a
     * minute), counting {@code held} down as each starts waiting: a metadata store that has stopped answering
     * the periodic housekeeping writes.
     */
    public static MetadataStore heartbeatsHeld(MetadataStore store, BooleanSupplier hold, CountDownLatch held,
            CountDownLatch release) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("heartbeatAgent") && hold.getAsBoolean()) {
                held.countDown();
                if (!release.await(1, TimeUnit.MINUTES)) {
                    throw new MetadataStoreException("injected: heartbeat held for a minute", true, null);
                }
            }
            return invoke(store, method, args);
        };
        return (MetadataStore) Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, handler);
    }

    private static boolean isCommit(Method method) {
        return method.getName().equals("commit") && method.getParameterCount() == 1
                && method.getParameterTypes()[0] == ObjectCommit.class;
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
