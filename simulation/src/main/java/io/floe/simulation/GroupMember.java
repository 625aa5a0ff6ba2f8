package io.floe.simulation;

import io.floe.agent.cluster.AgentNode;
import io.floe.agent.group.GroupError;
import io.floe.agent.group.HeartbeatRequest;
import io.floe.agent.group.JoinRequest;
import io.floe.agent.group.JoinResponse;
import io.floe.agent.group.JoinedMember;
import io.floe.agent.group.LeaveRequest;
import io.floe.agent.group.Protocol;
import io.floe.agent.group.SyncRequest;
import io.floe.agent.group.SyncResponse;
import io.floe.core.log.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A member of a classic consumer group as the Java consumer's coordinator client behaves, with eager
 * rebalancing: it finds the group's coordinator through any agent's view (FindCoordinator), joins
 * (JoinGroup v4+: a first join only gets a member id), the leader assigns the partitions round-robin
 * over the sorted member ids, and every member syncs. Heartbeats go out every third of the session
 * timeout on their own timer, as the Java client's heartbeat thread does, and tell of rebalances and of
 * a membership lost. A coordinator that answered no heartbeat for a whole session is taken for dead:
 * the join or sync in flight to it is given up and it is looked up again. The application loop asks
 * {@link #needsJoin} and calls {@link #join} between its transactions.
 */
final class GroupMember {

    private static final String PROTOCOL_TYPE = "consumer";
    private static final String ASSIGNOR = "range";

    enum State {
        UNJOINED,
        JOINING,
        MEMBER,
        STOPPED
    }

    private final World world;
    private final Cluster cluster;
    private final SimExecutor client;
    private final OffsetTimeline timeline;
    private final String groupId;
    private final String clientId;
    private final List<TopicPartition> partitions;
    private final int sessionTimeoutMs;
    private final int rebalanceTimeoutMs;

    private State state = State.UNJOINED;
    private String memberId = "";
    private OffsetTimeline.Generation generation;
    private List<TopicPartition> assignment = List.of();
    private boolean rebalance;
    private SimAgent coordinator;
    private AgentRequest<?> inFlight;
    private long lastHeartbeatAnswer;
    private boolean heartbeatInFlight;
    private boolean heartbeating;
    /** Bumped by every new join: answers and timers of an earlier one are dropped. */
    private int attempt;

    GroupMember(
            World world,
            Cluster cluster,
            SimExecutor client,
            OffsetTimeline timeline,
            String clientId,
            List<TopicPartition> partitions,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs) {
        this.world = world;
        this.cluster = cluster;
        this.client = client;
        this.timeline = timeline;
        this.groupId = timeline.groupId();
        this.clientId = clientId;
        this.partitions = List.copyOf(partitions);
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    }

    String groupId() {
        return groupId;
    }

    String memberId() {
        return memberId;
    }

    OffsetTimeline.Generation generation() {
        return generation;
    }

    List<TopicPartition> assignment() {
        return assignment;
    }

    /** The member's state, for reports. */
    String describe() {
        return state + (rebalance ? " (rebalance)" : "") + " generation " + generation + " assignment " + assignment
                + " coordinator " + coordinator;
    }

    /** Whether the member must (re)join before it processes more: it is not in a stable generation. */
    boolean needsJoin() {
        return state != State.MEMBER || rebalance;
    }

    boolean joining() {
        return state == State.JOINING;
    }

    /**
     * The member learned from a request that it is out of its generation: it rejoins, afresh when
     * {@code unknown} (the coordinator forgot its member id).
     */
    void outOfGeneration(boolean unknown) {
        if (state == State.MEMBER) {
            state = State.UNJOINED;
        }
        if (unknown) {
            memberId = "";
        }
    }

    /** Joins (eagerly: the assignment is revoked first); {@code onAssigned} gets the new one. */
    void join(Consumer<List<TopicPartition>> onAssigned) {
        state = State.JOINING;
        assignment = List.of();
        rebalance = false;
        int mine = ++attempt;
        tryJoin(mine, onAssigned);
    }

    /** LeaveGroup (not waited for); the member stops. */
    void leave() {
        SimAgent to = coordinator;
        if (to != null && !memberId.isEmpty() && state != State.STOPPED) {
            LeaveRequest leave =
                    new LeaveRequest(groupId, List.of(new LeaveRequest.Leaving(memberId, null, "closing")));
            AgentRequest.send(
                    client,
                    to,
                    to.blocking(),
                    agent -> CompletableFuture.completedFuture(
                            agent.agent().groups().leave(leave)),
                    sessionTimeoutMs * 1_000_000L,
                    answer -> {});
        }
        state = State.STOPPED;
        attempt++;
    }

    /** Calls {@code then} with the group's coordinator as some agent's view names it, or null when unknown. */
    void withCoordinator(Consumer<SimAgent> then) {
        if (coordinator == null || !coordinator.alive()) {
            SimAgent asked = cluster.anyResponsiveAgent();
            AgentNode named = asked == null ? null : asked.agent().cluster().coordinatorOf(groupId);
            coordinator = named == null ? null : cluster.agent(named.nodeId());
        }
        then.accept(coordinator);
    }

    /** The coordinator answered "not me", or no answer came: look it up again next time. */
    void coordinatorUnknown() {
        coordinator = null;
    }

    private void tryJoin(int mine, Consumer<List<TopicPartition>> onAssigned) {
        if (mine != attempt) {
            return;
        }
        withCoordinator(to -> {
            if (to == null) {
                retry(mine, onAssigned, 200_000_000L);
                return;
            }
            JoinRequest request = new JoinRequest(
                    groupId,
                    memberId,
                    null,
                    clientId,
                    "127.0.0.1",
                    sessionTimeoutMs,
                    rebalanceTimeoutMs,
                    PROTOCOL_TYPE,
                    List.of(new Protocol(ASSIGNOR, new byte[0])),
                    true,
                    false,
                    null);
            inFlight = AgentRequest.send(
                    client,
                    to,
                    to.blocking(),
                    agent -> agent.agent().groups().join(request).whenComplete((answer, failure) -> {
                        if (answer != null && answer.error() == GroupError.NONE) {
                            timeline.formed(new OffsetTimeline.Generation(answer.generationId(), answer.leaderId()));
                        }
                    }),
                    (rebalanceTimeoutMs + 5_000L) * 1_000_000L,
                    answer -> joined(mine, to, answer, onAssigned));
        });
    }

    private void joined(int mine, SimAgent to, JoinResponse answer, Consumer<List<TopicPartition>> onAssigned) {
        if (mine != attempt) {
            return;
        }
        if (answer == null) {
            coordinatorUnknown();
            retry(mine, onAssigned, 100_000_000L);
            return;
        }
        switch (answer.error()) {
            case NONE -> sync(mine, to, answer, onAssigned);
            case MEMBER_ID_REQUIRED -> {
                memberId = answer.memberId();
                tryJoin(mine, onAssigned);
            }
            case UNKNOWN_MEMBER_ID -> {
                memberId = "";
                retry(mine, onAssigned, 50_000_000L);
            }
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                coordinatorUnknown();
                retry(mine, onAssigned, 200_000_000L);
            }
            default -> retry(mine, onAssigned, 300_000_000L);
        }
    }

    private void sync(int mine, SimAgent to, JoinResponse joined, Consumer<List<TopicPartition>> onAssigned) {
        memberId = joined.memberId();
        generation = new OffsetTimeline.Generation(joined.generationId(), joined.leaderId());
        Map<String, byte[]> assignments = joined.leaderId().equals(memberId) ? assign(joined.members()) : Map.of();
        SyncRequest request = new SyncRequest(
                groupId, memberId, null, joined.generationId(), PROTOCOL_TYPE, joined.protocolName(), assignments);
        inFlight = AgentRequest.send(
                client,
                to,
                to.blocking(),
                agent -> agent.agent().groups().sync(request),
                (rebalanceTimeoutMs + 5_000L) * 1_000_000L,
                answer -> synced(mine, answer, onAssigned));
    }

    private void synced(int mine, SyncResponse answer, Consumer<List<TopicPartition>> onAssigned) {
        if (mine != attempt) {
            return;
        }
        if (answer == null
                || answer.error() == GroupError.NOT_COORDINATOR
                || answer.error() == GroupError.COORDINATOR_NOT_AVAILABLE) {
            coordinatorUnknown();
            retry(mine, onAssigned, 100_000_000L);
            return;
        }
        if (answer.error() != GroupError.NONE) {
            if (answer.error() == GroupError.UNKNOWN_MEMBER_ID) {
                memberId = "";
            }
            retry(mine, onAssigned, 50_000_000L);
            return;
        }
        assignment = parse(answer.assignment());
        state = State.MEMBER;
        inFlight = null;
        lastHeartbeatAnswer = world.nanoTime();
        if (!heartbeating) {
            heartbeating = true;
            client.schedule(this::heartbeat, heartbeatIntervalNanos(), TimeUnit.NANOSECONDS);
        }
        onAssigned.accept(assignment);
    }

    private void retry(int mine, Consumer<List<TopicPartition>> onAssigned, long delayNanos) {
        client.schedule(
                () -> tryJoin(mine, onAssigned), world.between(delayNanos / 2, delayNanos), TimeUnit.NANOSECONDS);
    }

    /** Round-robin over the members sorted by id; an assignment is the partition numbers, comma-separated. */
    private Map<String, byte[]> assign(List<JoinedMember> members) {
        List<String> ids =
                new ArrayList<>(members.stream().map(JoinedMember::memberId).toList());
        ids.sort(Comparator.naturalOrder());
        Map<String, StringBuilder> owned = new HashMap<>();
        ids.forEach(id -> owned.put(id, new StringBuilder()));
        for (TopicPartition partition : partitions) {
            StringBuilder of = owned.get(ids.get(partition.partition() % ids.size()));
            of.append(of.isEmpty() ? "" : ",").append(partition.partition());
        }
        Map<String, byte[]> assignments = new HashMap<>();
        owned.forEach((id, list) -> assignments.put(id, list.toString().getBytes(StandardCharsets.UTF_8)));
        return assignments;
    }

    private List<TopicPartition> parse(byte[] assignment) {
        String text = new String(assignment, StandardCharsets.UTF_8);
        List<TopicPartition> assigned = new ArrayList<>();
        if (!text.isEmpty()) {
            for (String number : text.split(",")) {
                assigned.add(partitions.get(Integer.parseInt(number)));
            }
        }
        return List.copyOf(assigned);
    }

    private long heartbeatIntervalNanos() {
        return sessionTimeoutMs * 1_000_000L / 3;
    }

    /** One heartbeat round: sends one when none is in flight; a coordinator silent for a session is taken for dead. */
    private void heartbeat() {
        if (state == State.STOPPED) {
            heartbeating = false;
            return;
        }
        client.schedule(this::heartbeat, heartbeatIntervalNanos(), TimeUnit.NANOSECONDS);
        if (state != State.MEMBER) {
            lastHeartbeatAnswer = world.nanoTime();
            return;
        }
        if (world.nanoTime() - lastHeartbeatAnswer > sessionTimeoutMs * 1_000_000L) {
            // The Java client's heartbeat thread marks the coordinator unknown and drops its connection.
            coordinatorUnknown();
            lastHeartbeatAnswer = world.nanoTime();
        }
        if (heartbeatInFlight) {
            return;
        }
        withCoordinator(to -> {
            if (to == null) {
                return;
            }
            heartbeatInFlight = true;
            HeartbeatRequest request = new HeartbeatRequest(groupId, memberId, null, generation.generationId());
            int mine = attempt;
            AgentRequest.send(
                    client,
                    to,
                    to.blocking(),
                    agent -> agent.agent().groups().heartbeat(request),
                    sessionTimeoutMs * 1_000_000L,
                    answer -> {
                        heartbeatInFlight = false;
                        if (mine == attempt && answer != null) {
                            heartbeatAnswered(answer);
                        }
                    });
        });
    }

    private void heartbeatAnswered(GroupError answer) {
        switch (answer) {
            case NONE -> lastHeartbeatAnswer = world.nanoTime();
            case REBALANCE_IN_PROGRESS -> {
                lastHeartbeatAnswer = world.nanoTime();
                rebalance = true;
            }
            case UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID -> outOfGeneration(true);
            case ILLEGAL_GENERATION -> outOfGeneration(false);
            default -> coordinatorUnknown();
        }
    }
}
