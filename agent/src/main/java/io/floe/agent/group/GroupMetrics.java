package io.floe.agent.group;

import io.floe.agent.group.consumer.ConsumerGroup;
import io.floe.agent.group.consumer.ConsumerGroupState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * The coordinator's meters: classic and consumer-protocol groups in memory by state, completed
 * rebalances (classic join phases; consumer group epoch bumps), committed and expired offsets,
 * coordinator terms begun, writes fenced by another agent's lease, and lease rows forgotten.
 * Groups that exist only as stored offsets (after a restart) are not counted until a member or a
 * request brings them into memory.
 */
final class GroupMetrics {

    private final Counter rebalances;
    private final Counter consumerRebalances;
    private final Counter offsetCommits;
    private final Counter offsetsExpired;
    private final Counter leasesExpired;
    private final MeterRegistry meters;

    GroupMetrics(
            MeterRegistry meters,
            Supplier<Collection<ClassicGroup>> groups,
            Supplier<Collection<ConsumerGroup>> consumerGroups) {
        for (GroupState state : GroupState.values()) {
            Gauge.builder(
                            "floe.groups",
                            () -> groups.get().stream()
                                    .filter(group -> group.isIn(state))
                                    .count())
                    .tag("state", state.label())
                    .description("Classic consumer groups in memory, by state")
                    .register(meters);
        }
        for (ConsumerGroupState state : ConsumerGroupState.values()) {
            Gauge.builder(
                            "floe.consumer.groups",
                            () -> consumerGroups.get().stream()
                                    .filter(group -> group.state() == state)
                                    .count())
                    .tag("state", state.label())
                    .description("Consumer-protocol (KIP-848) groups in memory, by state")
                    .register(meters);
        }
        this.consumerRebalances = Counter.builder("floe.consumer.group.rebalances")
                .description("Consumer-protocol group epoch bumps (each asks for a new target assignment)")
                .register(meters);
        this.rebalances = Counter.builder("floe.group.rebalances")
                .description("Join phases completed with members (each starts a generation)")
                .register(meters);
        this.offsetCommits = Counter.builder("floe.group.offset.commits")
                .description("Partition offsets committed by consumer groups")
                .register(meters);
        this.offsetsExpired = Counter.builder("floe.group.offsets.expired")
                .description("Committed offsets removed by retention")
                .register(meters);
        this.leasesExpired = Counter.builder("floe.group.coordinator.leases.expired")
                .description("Coordinator lease rows (with their recorded members) of groups nobody coordinated for a"
                        + " day, forgotten by this agent's retention sweep")
                .register(meters);
        this.meters = meters;
    }

    /**
     * A coordinator term began here; {@code earlierMembers} says how it learned of the earlier term's
     * members: {@code recorded} (taken over from the record), {@code waited} (unknown: no generation
     * until their sessions ran out), {@code none} (nothing to wait for).
     */
    void termStarted(String earlierMembers) {
        Counter.builder("floe.group.coordinator.terms")
                .description("Coordinator terms begun on this agent, by what it knew of the earlier term's members")
                .tag("earlier.members", earlierMembers)
                .register(meters)
                .increment();
    }

    /**
     * A write for a group ({@code offsets}, {@code transactional.offsets}, {@code deletion},
     * {@code members}) was refused by the store: another agent took the group (a paused or out-of-date
     * coordinator, fenced).
     */
    void fenced(String write) {
        Counter.builder("floe.group.writes.fenced")
                .description("Writes for a group refused because another agent holds its coordinator lease")
                .tag("write", write)
                .register(meters)
                .increment();
    }

    void rebalanced() {
        rebalances.increment();
    }

    void consumerRebalanced() {
        consumerRebalances.increment();
    }

    void committed(int partitions) {
        offsetCommits.increment(partitions);
    }

    void expired(int offsets) {
        offsetsExpired.increment(offsets);
    }

    void leasesExpired(int leases) {
        leasesExpired.increment(leases);
    }
}
