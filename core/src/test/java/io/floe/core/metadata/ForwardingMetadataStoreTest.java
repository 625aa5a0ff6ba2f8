package io.floe.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every method of {@link MetadataStore}'s roles, called on a {@link ForwardingMetadataStore} (by
 * reflection, with dummy arguments, over a stub delegate), passes its hook exactly one
 * {@link MetadataOperation} of its own role and name, then runs the delegate's method of the same
 * signature: a forwarding method wired to another method's constant, or to another delegate method,
 * fails here. Overloads share a name, so which constant each takes is stated below, and no two methods
 * may share a constant.
 */
class ForwardingMetadataStoreTest {

    /** The constant of each overloaded method, by its parameter types. */
    private static final Map<String, MetadataOperation> OVERLOADS = Map.of(
            "batches(TopicPartition,long,int)", MetadataOperation.BATCHES,
            "batches(List)", MetadataOperation.BATCHES_OF_QUERIES,
            "commitOffsets(String,Map)", MetadataOperation.COMMIT_OFFSETS,
            "commitOffsets(CoordinatorLease,Map)", MetadataOperation.COMMIT_OFFSETS_FENCED,
            "heartbeatAgent(AgentRegistration)", MetadataOperation.HEARTBEAT_AGENT,
            "heartbeatAgent(AgentRegistration,Duration)", MetadataOperation.HEARTBEAT_AGENT_RENEWING);

    /** The methods of {@link MetadataStore}'s roles (its super-interfaces but {@link AutoCloseable}). */
    private static List<Method> roleMethods() {
        return Arrays.stream(MetadataStore.class.getInterfaces())
                .filter(role -> role != AutoCloseable.class)
                .flatMap(role -> Arrays.stream(role.getDeclaredMethods()))
                .filter(method -> !Modifier.isStatic(method.getModifiers()) && !method.isSynthetic())
                .sorted(Comparator.comparing(ForwardingMetadataStoreTest::signature))
                .toList();
    }

    @TestFactory
    Stream<DynamicTest> everyRoleMethodPassesItsOwnOperationAndRunsTheSameDelegateMethod() {
        return roleMethods().stream()
                .map(method -> DynamicTest.dynamicTest(signature(method), () -> assertForwards(method)));
    }

    @Test
    void theRolesAreTheNineAndEachOperationIsOneMethods() {
        List<Method> methods = roleMethods();
        assertThat(Arrays.stream(MetadataStore.class.getInterfaces()).filter(role -> role != AutoCloseable.class))
                .containsExactlyInAnyOrder(
                        TopicMetadata.class,
                        LogAppends.class,
                        LogReads.class,
                        LogRetention.class,
                        ConsumerOffsets.class,
                        AgentMembership.class,
                        Leases.class,
                        ObjectLifecycle.class,
                        Transactions.class);
        Map<MetadataOperation, String> methodOf = new EnumMap<>(MetadataOperation.class);
        for (Method method : methods) {
            MetadataOperation operation = forward(method).operations.get(0);
            String earlier = methodOf.put(operation, signature(method));
            assertThat(earlier)
                    .as("%s is passed by both %s and %s", operation, earlier, signature(method))
                    .isNull();
        }
        assertThat(methodOf.keySet())
                .as("operations no method passes")
                .containsExactlyInAnyOrder(MetadataOperation.values());
    }

    @Test
    void theStoresPropertiesForwardWithoutTheHook() {
        Recording recording = new Recording();
        ForwardingMetadataStore forwarding = recording.forwarding();

        forwarding.describe();
        forwarding.embedded();
        forwarding.close();

        assertThat(recording.operations).isEmpty();
        assertThat(recording.invoked).extracting(Method::getName).containsExactly("describe", "embedded", "close");
    }

    private static void assertForwards(Method method) {
        Recording recording = forward(method);

        assertThat(recording.operations).as("operations passed to the hook").hasSize(1);
        MetadataOperation operation = recording.operations.get(0);
        assertThat(operation.role()).as("role of %s", operation).isEqualTo(method.getDeclaringClass());
        assertThat(operation.method()).as("method of %s", operation).isEqualTo(method.getName());
        if (OVERLOADS.containsKey(signature(method))) {
            assertThat(operation.name())
                    .as("the overload's constant")
                    .isEqualTo(OVERLOADS.get(signature(method)).name());
        } else {
            assertThat(roleMethods().stream().filter(other -> other.getName().equals(method.getName())))
                    .as("overloads of %s missing from OVERLOADS", method.getName())
                    .hasSize(1);
        }
        assertThat(recording.invoked).as("delegate methods run").hasSize(1);
        Method invoked = recording.invoked.get(0);
        assertThat(signature(invoked)).as("the delegate method run").isEqualTo(signature(method));
    }

    /** Calls {@code method} once on a forwarding store over a stub, recording what passed. */
    private static Recording forward(Method method) {
        Recording recording = new Recording();
        try {
            method.invoke(recording.forwarding(), dummyArguments(method));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("calling " + signature(method), e);
        }
        return recording;
    }

    /** What one forwarding store passed to its hook and ran on its delegate. */
    private static final class Recording {
        final List<MetadataOperation> operations = new ArrayList<>();
        final List<Method> invoked = new ArrayList<>();

        ForwardingMetadataStore forwarding() {
            MetadataStore delegate = (MetadataStore) Proxy.newProxyInstance(
                    MetadataStore.class.getClassLoader(),
                    new Class<?>[] {MetadataStore.class},
                    (proxy, invokedMethod, args) -> {
                        invoked.add(invokedMethod);
                        return zero(invokedMethod.getReturnType());
                    });
            return new ForwardingMetadataStore(delegate) {
                @Override
                protected <T> T call(MetadataOperation operation, Supplier<T> call) {
                    operations.add(operation);
                    return call.get();
                }
            };
        }
    }

    private static Object[] dummyArguments(Method method) {
        return Arrays.stream(method.getParameterTypes())
                .map(ForwardingMetadataStoreTest::dummy)
                .toArray();
    }

    private static Object dummy(Class<?> type) {
        if (type.isPrimitive()) {
            return zero(type);
        }
        if (type == List.class || type == Collection.class) {
            return List.of();
        }
        if (type == Set.class) {
            return Set.of();
        }
        if (type == Map.class) {
            return Map.of();
        }
        if (type == Duration.class) {
            return Duration.ZERO;
        }
        return null;
    }

    private static Object zero(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == short.class) {
            return (short) 0;
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        if (type == char.class) {
            return (char) 0;
        }
        if (type == float.class) {
            return 0f;
        }
        if (type == double.class) {
            return 0d;
        }
        return null;
    }

    private static String signature(Method method) {
        return method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .reduce((a, b) -> a + "," + b)
                        .map(params -> "(" + params + ")")
                        .orElse("()");
    }
}
