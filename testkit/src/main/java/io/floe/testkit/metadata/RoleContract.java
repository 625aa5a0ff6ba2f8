package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What every metadata contract suite shares: each suite owns some roles, runs its tests on the store
 * under test wrapped by {@link #recorded}, and after its last test checks that every method of every
 * role it owns was called (by reflection over the role interfaces, overloads counted apart). A method
 * added to a role thus fails its suite until a test calls it. A run of only some of a suite's tests
 * (a filtered run) checks nothing.
 */
public abstract class RoleContract {

    private static final Map<Class<?>, Set<MetadataOperation>> CALLED = new ConcurrentHashMap<>();
    private static final Map<Class<?>, List<Class<?>>> ROLES = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Integer> TESTS_RUN = new ConcurrentHashMap<>();

    /** The role interfaces this suite is the contract of. */
    protected abstract List<Class<?>> roles();

    /** {@code store}, recording each operation called through it for the suite's check; once per test. */
    protected final MetadataStore recorded(MetadataStore store) {
        Set<MetadataOperation> called = CALLED.computeIfAbsent(getClass(), suite -> ConcurrentHashMap.newKeySet());
        ROLES.putIfAbsent(getClass(), List.copyOf(roles()));
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
    static void everyMethodOfTheSuitesRolesWasCalled(TestInfo info) {
        Class<?> suite = info.getTestClass().orElseThrow();
        List<Class<?>> roles = ROLES.get(suite);
        if (roles == null || TESTS_RUN.get(suite) < tests(suite)) {
            return;
        }
        Set<MetadataOperation> called = CALLED.get(suite);
        for (Class<?> role : roles) {
            List<String> declared = Arrays.stream(role.getDeclaredMethods())
                    .filter(method -> !Modifier.isStatic(method.getModifiers()) && !method.isSynthetic())
                    .map(Method::getName).sorted().toList();
            EnumSet<MetadataOperation> operations = EnumSet.noneOf(MetadataOperation.class);
            Arrays.stream(MetadataOperation.values()).filter(operation -> operation.role() == role)
                    .forEach(operations::add);
            assertThat(operations.stream().map(MetadataOperation::method).sorted().toList())
                    .as("the operations declared for %s, against its methods", role.getSimpleName())
                    .isEqualTo(declared);
            operations.removeAll(called);
            assertThat(operations).as("operations of %s that no test of %s called", role.getSimpleName(),
                    suite.getSimpleName()).isEmpty();
        }
    }

    /** The number of tests {@code suite} declares, with those it inherits. */
    private static long tests(Class<?> suite) {
        long tests = 0;
        for (Class<?> type = suite; type != null; type = type.getSuperclass()) {
            tests += Arrays.stream(type.getDeclaredMethods()).filter(method -> method.isAnnotationPresent(Test.class))
                    .count();
        }
        return tests;
    }
}
