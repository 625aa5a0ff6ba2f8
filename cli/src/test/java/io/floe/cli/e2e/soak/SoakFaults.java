package io.floe.cli.e2e.soak;

import io.floe.cli.e2e.faults.Agents;
import io.floe.cli.e2e.soak.SoakSchedule.Kind;
import io.floe.cli.e2e.soak.SoakSchedule.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;

/**
 * Runs a {@link SoakSchedule} on the caller's thread: at each step's time it finds the step's victim
 * (asking the agents who coordinates the application's group or its transactions), pauses it
 * (SIGSTOP, then SIGCONT) or kills it (SIGKILL, then a start on the same node id and ports), and
 * records what it did in the timeline. An agent that exited on its own is recorded and started again
 * before each step. When the schedule is done, every agent runs.
 */
final class SoakFaults {

    private static final long LOOKUP_TIMEOUT_SECONDS = 15;

    private final SoakSchedule schedule;
    private final Agents agents;
    private final Admin admin;
    private final long startedAt;
    private final Consumer<String> mark;
    private final Map<Kind, Integer> injected = new EnumMap<>(Kind.class);
    private final Map<Integer, Integer> struck = new TreeMap<>();
    private final List<String> failedSteps = new ArrayList<>();

    /** {@code startedAt} is the run's start ({@link System#nanoTime()}), which the steps' times count from. */
    SoakFaults(SoakSchedule schedule, Agents agents, Admin admin, long startedAt, Consumer<String> mark) {
        this.schedule = schedule;
        this.agents = agents;
        this.admin = admin;
        this.startedAt = startedAt;
        this.mark = mark;
        for (Kind kind : Kind.values()) {
            injected.put(kind, 0);
        }
    }

    /** Runs every step, each at its time or after the one before, whichever is later. */
    void run() throws Exception {
        for (Step step : schedule.steps()) {
            waitUntil(step.at());
            int revived = agents.reviveCrashed();
            if (revived > 0) {
                mark.accept(revived + " agent(s) had exited on their own; started again");
            }
            int victim = victim(step);
            mark.accept("start " + step + ": agent " + victim);
            injected.merge(step.kind(), 1, Integer::sum);
            struck.merge(victim, 1, Integer::sum);
            try {
                inject(step, victim);
                mark.accept("end " + step.kind() + " of agent " + victim);
            } catch (Exception | AssertionError e) {
                // A start slower than its timeout on a loaded machine is no reason to stop the run: the agent
                // goes on starting, and the heal waits for it again.
                failedSteps.add(step + " on agent " + victim + ": "
                        + e.toString().lines().findFirst().orElse(""));
                mark.accept("step failed: " + step + " on agent " + victim + ": " + e);
            }
        }
    }

    private void inject(Step step, int victim) throws Exception {
        switch (step.kind()) {
            case PAUSE -> {
                agents.pause(victim);
                try {
                    pause(step.length());
                } finally {
                    agents.resume(victim);
                }
            }
            case KILL -> {
                agents.kill(victim);
                pause(step.length());
                agents.start(victim);
            }
        }
    }

    /** Steps that did not finish as planned (an agent's start that timed out), with why. */
    List<String> failedSteps() {
        return List.copyOf(failedSteps);
    }

    /** Resumes every agent and starts every one that is down (a no-op for those that run). */
    void heal() throws Exception {
        for (int nodeId : agents.nodeIds()) {
            agents.resume(nodeId);
        }
        agents.reviveCrashed();
        for (int nodeId : agents.nodeIds()) {
            agents.start(nodeId);
            agents.awaitHealthy(nodeId);
        }
    }

    Map<Kind, Integer> injected() {
        return Map.copyOf(injected);
    }

    /** How many steps struck each agent. */
    Map<Integer, Integer> struck() {
        return Map.copyOf(struck);
    }

    private int victim(Step step) {
        int any = agents.nodeIds().get(step.draw() % agents.nodeIds().size());
        try {
            return switch (step.victim()) {
                case GROUP_COORDINATOR ->
                    admin.describeConsumerGroups(List.of(CountingApp.APPLICATION))
                            .describedGroups()
                            .get(CountingApp.APPLICATION)
                            .get(LOOKUP_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                            .coordinator()
                            .id();
                case TRANSACTION_COORDINATOR -> transactionCoordinator();
                case ANY -> any;
            };
        } catch (Exception e) {
            mark.accept("could not find the " + step.victim() + " (" + e + "); striking agent " + any);
            return any;
        }
    }

    /** The agent coordinating most of the application's transactional ids (one per stream thread). */
    private int transactionCoordinator() throws Exception {
        List<String> ids = admin.listTransactions().all().get(LOOKUP_TIMEOUT_SECONDS, TimeUnit.SECONDS).stream()
                .map(TransactionListing::transactionalId)
                .filter(id -> id.startsWith(CountingApp.APPLICATION + "-"))
                .toList();
        Map<String, TransactionDescription> described =
                admin.describeTransactions(ids).all().get(LOOKUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return described.values().stream()
                .collect(Collectors.groupingBy(TransactionDescription::coordinatorId, Collectors.counting()))
                .entrySet()
                .stream()
                .max(Map.Entry.comparingByValue())
                .orElseThrow(() -> new IllegalStateException("no transactional id of " + CountingApp.APPLICATION))
                .getKey();
    }

    private void waitUntil(Duration at) throws InterruptedException {
        long due = startedAt + at.toNanos();
        TimeUnit.NANOSECONDS.sleep(due - System.nanoTime()); // pacing the schedule, not synchronization
    }

    private static void pause(Duration length) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(length.toMillis()); // how long the fault lasts: pacing, not synchronization
    }
}
