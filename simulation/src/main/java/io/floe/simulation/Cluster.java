package io.floe.simulation;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectStore;
import io.floe.maintenance.MaintenanceConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The agents of a run and their supervisor: agents are killed at random moments (besides the crashes
 * the stores inject), and a dead agent is restarted, as a new incarnation, after a random down time.
 */
final class Cluster {

    private final World world;
    private final Faults faults;
    private final MetadataStore metadata;
    private final ObjectStore objects;
    private final SimExecutor network;
    private final SimExecutor supervisor;
    private final Duration flushInterval;
    private final MaintenanceConfig maintenance;
    private SimAgent.TableflowSetup tableflow;
    private final List<SimAgent> everyIncarnation = new ArrayList<>();
    private final Map<Integer, SimAgent> agents = new TreeMap<>();
    private final Map<Integer, Integer> incarnations = new TreeMap<>();
    private final Map<Integer, Long> downSince = new TreeMap<>();
    private double killRatePerSecond;
    private int starts;

    Cluster(
            World world,
            Faults faults,
            MetadataStore metadata,
            ObjectStore objects,
            SimExecutor network,
            SimExecutor supervisor,
            Duration flushInterval,
            MaintenanceConfig maintenance,
            SimAgent.TableflowSetup tableflow,
            double killRatePerSecond) {
        this.tableflow = tableflow;
        this.world = world;
        this.faults = faults;
        this.metadata = metadata;
        this.objects = objects;
        this.network = network;
        this.supervisor = supervisor;
        this.flushInterval = flushInterval;
        this.maintenance = maintenance;
        this.killRatePerSecond = killRatePerSecond;
    }

    /** Starts agents 1..count and the supervisor's rounds (every 250 ms of virtual time). */
    void start(int count) {
        for (int nodeId = 1; nodeId <= count; nodeId++) {
            downSince.put(nodeId, -1L);
        }
        supervisor.scheduleWithFixedDelay(this::supervise, 0, 250, TimeUnit.MILLISECONDS);
    }

    /** No more kills; dead agents come back at the next round. */
    void heal() {
        killRatePerSecond = 0;
    }

    /** At the end of a run: closes what the incarnations held in this JVM. */
    void release() {
        everyIncarnation.forEach(SimAgent::release);
    }

    int starts() {
        return starts;
    }

    List<SimAgent> liveAgents() {
        List<SimAgent> live = new ArrayList<>();
        for (SimAgent agent : agents.values()) {
            if (agent.alive()) {
                live.add(agent);
            }
        }
        return live;
    }

    /**
     * A live agent that is not paused, chosen by the seed, or null when there is none: where a client
     * that tried a paused one and timed out ends up.
     */
    SimAgent anyResponsiveAgent() {
        List<SimAgent> responsive = new ArrayList<>();
        for (SimAgent agent : liveAgents()) {
            if (agent.node().pausedUntil() <= world.nanoTime()) {
                responsive.add(agent);
            }
        }
        return responsive.isEmpty() ? null : responsive.get(world.random().nextInt(responsive.size()));
    }

    /** The live incarnation of agent {@code nodeId}, or null. */
    SimAgent agent(int nodeId) {
        SimAgent agent = agents.get(nodeId);
        return agent != null && agent.alive() ? agent : null;
    }

    /** Tableflow stops on every live agent, and agents start without it from now on. */
    void stopTableflow() {
        tableflow = null;
        liveAgents().forEach(SimAgent::stopTableflow);
    }

    /** Agents are killed between steps at this rate from now on (0: none). */
    void killRate(double perSecond) {
        killRatePerSecond = perSecond;
    }

    /** Kills every live agent (a stop of the whole cluster); the supervisor starts them again. */
    void killAll() {
        for (SimAgent agent : liveAgents()) {
            agent.kill();
        }
    }

    /** Freezes {@code agent} for {@code nanos} (a VM pause): it resumes believing nothing happened. */
    void pause(SimAgent agent, long nanos) {
        agent.node().pauseUntil(world.nanoTime() + nanos);
        faults.count("agent paused");
    }

    /** A live agent chosen by the seed, or null when all are down. */
    SimAgent anyLiveAgent() {
        List<SimAgent> live = liveAgents();
        return live.isEmpty() ? null : live.get(world.random().nextInt(live.size()));
    }

    private void supervise() {
        for (int nodeId : downSince.keySet()) {
            SimAgent agent = agents.get(nodeId);
            if (agent != null && agent.alive() && world.chance(killRatePerSecond / 4)) {
                agent.kill();
                faults.count("agent killed between steps");
            }
            if (agent != null && !agent.alive() && downSince.get(nodeId) < 0) {
                downSince.put(nodeId, world.nanoTime());
            }
            boolean down = agent == null || !agent.alive();
            boolean longEnough = killRatePerSecond == 0
                    || agent == null
                    || world.nanoTime() - downSince.get(nodeId) > world.between(200_000_000L, 8_000_000_000L);
            if (down && longEnough) {
                restart(nodeId);
            }
        }
    }

    private void restart(int nodeId) {
        int incarnation = incarnations.merge(nodeId, 1, Integer::sum);
        try {
            SimAgent agent = SimAgent.start(
                    world,
                    faults,
                    nodeId,
                    incarnation,
                    metadata,
                    objects,
                    network,
                    flushInterval,
                    maintenance,
                    tableflow);
            everyIncarnation.add(agent);
            agents.put(nodeId, agent);
            downSince.put(nodeId, -1L);
            starts++;
        } catch (SimulatedCrash | RuntimeException failedToStart) {
            // it died or failed while starting (a store call failed): the next round tries again
        }
    }
}
