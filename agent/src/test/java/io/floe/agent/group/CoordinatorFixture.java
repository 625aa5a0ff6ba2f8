package io.floe.agent.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.MetadataStore;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A coordinator on virtual time and a real SQLite store, with shorthands for the requests a
 * consumer sends. Member ids are deterministic.
 */
final class CoordinatorFixture implements AutoCloseable {

    static final String GROUP = "payments";
    static final int SESSION_TIMEOUT_MS = 10_000;
    static final int REBALANCE_TIMEOUT_MS = 30_000;
    static final long INITIAL_DELAY_MS =
            GroupCoordinatorConfig.defaults().initialRebalanceDelay().toMillis();

    final ManualTimers timers = new ManualTimers();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final MetadataStore store;
    final GroupCoordinator coordinator;
    private final boolean ownsStore;
    final String owner;
    /** The generation {@link #stableGroup} formed last. */
    int lastGeneration;

    CoordinatorFixture(Path dir) {
        this(dir, GroupCoordinatorConfig.defaults());
    }

    CoordinatorFixture(Path dir, GroupCoordinatorConfig config) {
        this(null, dir, config, "agent-test", group -> true);
    }

    /** On a store of its own, coordinating (by its view) only the groups {@code routedHere} accepts. */
    CoordinatorFixture(Path dir, GroupCoordinatorConfig config, Predicate<String> routedHere) {
        this(null, dir, config, "agent-test", routedHere);
    }

    /**
     * A coordinator named {@code owner} on {@code store}, which the caller closes: several fixtures on
     * one store are agents of one cluster, each on its own virtual time (an agent whose time does not
     * move is paused).
     */
    CoordinatorFixture(MetadataStore store, GroupCoordinatorConfig config, String owner) {
        this(store, null, config, owner, group -> true);
    }

    /** On {@code store}, or (when it is null) on a store of its own in {@code dir}. */
    private CoordinatorFixture(
            MetadataStore store, Path dir, GroupCoordinatorConfig config, String owner, Predicate<String> routedHere) {
        AtomicLong ids = new AtomicLong();
        this.ownsStore = store == null;
        this.store = store != null ? store : SqlMetadataStore.openSqlite(dir.resolve("metadata.db"), timers.clock());
        this.coordinator = new GroupCoordinator(
                config,
                this.store,
                this.store,
                timers,
                timers.clock(),
                meters,
                () -> new UUID(0, ids.incrementAndGet()),
                owner,
                routedHere,
                Runnable::run);
        this.owner = owner;
    }

    static List<Protocol> protocols(String... names) {
        return Arrays.stream(names)
                .map(name -> new Protocol(name, bytes(name + "-metadata")))
                .toList();
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static JoinRequest joinRequest(String memberId, String instanceId, List<Protocol> protocols) {
        return new JoinRequest(
                GROUP,
                memberId,
                instanceId,
                "client",
                "/127.0.0.1",
                SESSION_TIMEOUT_MS,
                REBALANCE_TIMEOUT_MS,
                "consumer",
                protocols,
                true,
                true,
                "test");
    }

    CompletableFuture<JoinResponse> join(String memberId) {
        return coordinator.join(joinRequest(memberId, null, protocols("range")));
    }

    /** The member-id round trip of a new dynamic member: the id it is told to rejoin with. */
    String newMemberId() {
        JoinResponse response = join("").join();
        assertThat(response.error()).isEqualTo(GroupError.MEMBER_ID_REQUIRED);
        return response.memberId();
    }

    CompletableFuture<SyncResponse> sync(String memberId, int generation, Map<String, byte[]> assignments) {
        return coordinator.sync(new SyncRequest(GROUP, memberId, null, generation, "consumer", "range", assignments));
    }

    GroupError heartbeat(String memberId, int generation) {
        return coordinator
                .heartbeat(new HeartbeatRequest(GROUP, memberId, null, generation))
                .join();
    }

    GroupState state() {
        return coordinator.describeGroup(GROUP).state();
    }

    /**
     * Members {@code count} dynamic members, through the initial delay and the leader's sync: a Stable
     * group of generation 1 in join order, the first leading.
     */
    List<String> stableGroup(int count) {
        List<String> members = new ArrayList<>();
        List<CompletableFuture<JoinResponse>> joins = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String memberId = newMemberId();
            members.add(memberId);
            joins.add(join(memberId));
        }
        timers.advance(INITIAL_DELAY_MS * count);
        joins.forEach(join -> assertThat(join).isCompleted());
        int generation = joins.get(0).join().generationId();
        lastGeneration = generation;
        Map<String, byte[]> assignments = new HashMap<>();
        members.forEach(member -> assignments.put(member, bytes("assignment-of-" + member)));
        assertThat(sync(members.get(0), generation, assignments).join().error()).isEqualTo(GroupError.NONE);
        members.subList(1, count)
                .forEach(member -> sync(member, generation, Map.of()).join());
        assertThat(state()).isEqualTo(GroupState.STABLE);
        return members;
    }

    @Override
    public void close() {
        coordinator.close();
        if (ownsStore) {
            store.close();
        }
    }
}
