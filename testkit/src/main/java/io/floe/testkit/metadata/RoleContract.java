package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What every metadata contract suite shares. Each suite is the contract of one role: it runs its
 * tests on a fresh store from {@link #createStore()}, wrapped by {@link #recorded}, and after its last
 * test checks that every method of its role was called (by reflection over the role interface,
 * overloads counted apart). A method added to a role thus fails its role's suite until a test calls
 * it. A run of only some of a suite's tests (a filtered run) checks nothing. Whatever a test did,
 * every object's reference count must be its number of batch rows ({@code referenceMismatches}).
 */
public abstract class RoleContract {

    /** A producer id the suites' idempotent batches use. */
    protected static final long PRODUCER = 4242;

    private static final long TIMEOUT_SECONDS = 60;

    private static final Map<Class<?>, Set<MetadataOperation>> CALLED = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Class<?>> ROLES = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Integer> TESTS_RUN = new ConcurrentHashMap<>();

    private MetadataStore unrecorded;
    /** The store of the running test, recorded for the suite's check. */
    protected MetadataStore store;
    /** Uploads and batches for {@link #store}. */
    protected ProduceFixture produce;

    /** The role interface this suite is the contract of. */
    protected abstract Class<?> role();

    /** A new store holding no topics; the suite closes it after each test. */
    protected abstract MetadataStore createStore();

    /** The store of the running test, for implementation-specific tests in subclasses. */
    protected final MetadataStore store() {
        return store;
    }

    @BeforeEach
    final void openStore() {
        unrecorded = createStore();
        store = recorded(unrecorded);
        produce = new ProduceFixture(store);
    }

    @AfterEach
    final void closeStore() {
        if (unrecorded != null) {
            try {
                assertThat(store.referenceMismatches())
                        .as("objects whose count is not their number of rows")
                        .isEmpty();
            } finally {
                unrecorded.close();
            }
        }
    }

    /** {@code store}, recording each operation called through it for the suite's check; once per test. */
    protected final MetadataStore recorded(MetadataStore store) {
        Set<MetadataOperation> called = CALLED.computeIfAbsent(getClass(), suite -> ConcurrentHashMap.newKeySet());
        ROLES.putIfAbsent(getClass(), role());
        TESTS_RUN.merge(getClass(), 1, Integer::sum);
        return new ForwardingMetadataStore(store) {
            @Override
            protected <T> T call(MetadataOperation operation, Supplier<T> call) {
                called.add(operation);
                return call.get();
            }
        };
    }

    @AfterAll
    static void everyMethodOfTheSuitesRoleWasCalled(TestInfo info) {
        Class<?> suite = info.getTestClass().orElseThrow();
        Class<?> role = ROLES.get(suite);
        if (role == null || TESTS_RUN.get(suite) < tests(suite)) {
            return;
        }
        Set<MetadataOperation> called = CALLED.get(suite);
        List<String> declared = Arrays.stream(role.getDeclaredMethods())
                .filter(method -> !Modifier.isStatic(method.getModifiers()) && !method.isSynthetic())
                .map(Method::getName)
                .sorted()
                .toList();
        EnumSet<MetadataOperation> operations = EnumSet.noneOf(MetadataOperation.class);
        Arrays.stream(MetadataOperation.values())
                .filter(operation -> operation.role() == role)
                .forEach(operations::add);
        assertThat(operations.stream().map(MetadataOperation::method).sorted().toList())
                .as("the operations declared for %s, against its methods", role.getSimpleName())
                .isEqualTo(declared);
        operations.removeAll(called);
        assertThat(operations)
                .as("operations of %s that no test of %s called", role.getSimpleName(), suite.getSimpleName())
                .isEmpty();
    }

    /** The number of tests {@code suite} declares, with those it inherits. */
    private static long tests(Class<?> suite) {
        long tests = 0;
        for (Class<?> type = suite; type != null; type = type.getSuperclass()) {
            tests += Arrays.stream(type.getDeclaredMethods())
                    .filter(method -> method.isAnnotationPresent(Test.class))
                    .count();
        }
        return tests;
    }

    // ----- helpers the suites share

    /** A fresh object, registered and committed with {@code batches}. */
    protected final ObjectKey committed(BatchAppend... batches) {
        ObjectKey key = produce.registerUpload();
        assertThat(produce.commit(key, batches)).isInstanceOf(CommitOutcome.Committed.class);
        return key;
    }

    /** A rewrite moving {@code batches}, in order and whole, into {@code output}. */
    protected static ObjectRewrite rewriteInto(ObjectKey output, List<BatchCoordinate> batches) {
        List<ObjectRewrite.Move> moves = new ArrayList<>();
        long position = 0;
        for (BatchCoordinate batch : batches) {
            moves.add(new ObjectRewrite.Move(
                    batch, new ByteRange(position, batch.range().length())));
            position += batch.range().length();
        }
        return new ObjectRewrite(output, position, moves);
    }

    protected static AppendResult appended(long baseOffset) {
        return new AppendResult.Appended(baseOffset, 0);
    }

    protected static void assertFailed(AppendResult result, AppendError error) {
        assertThat(result)
                .isInstanceOfSatisfying(
                        AppendResult.Failed.class,
                        failed ->
                                assertThat(failed.error()).as(failed.message()).isEqualTo(error));
    }

    protected static List<Long> baseOffsets(List<BatchCoordinate> batches) {
        return batches.stream().map(BatchCoordinate::baseOffset).toList();
    }

    /** Starts all tasks together (a barrier, not a sleep) and returns their results in task order. */
    public static <T> List<T> runConcurrently(List<Callable<T>> tasks) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(tasks.size());
        try {
            CyclicBarrier start = new CyclicBarrier(tasks.size());
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(executor.submit(() -> {
                    start.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    return task.call();
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            executor.shutdownNow();
        }
    }
}
