package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.faults.FaultSchedule.Kind;
import io.floe.cli.e2e.faults.FaultSchedule.Step;
import io.floe.cli.e2e.faults.S3FaultProxy.Rates;
import io.floe.testkit.postgres.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Injects the faults of a {@link FaultSchedule}, one step at a time on the caller's thread, over a
 * fault phase: agents killed and started again, PostgreSQL crashed and started again or its sessions
 * terminated, S3 requests failing in bursts or their connections cut. Throughout the phase the S3
 * proxy also injects faults at a low background rate. Steps run one after another: an agent is
 * started again (and healthy) before the next step, so at most one agent is down and no agent starts
 * while PostgreSQL is down. A step that starts late (after a restart) still runs if it ends within the
 * phase. When the phase ends every fault is off, and every agent is up.
 */
final class Nemesis {

    /** Faults the S3 proxy injects all through the fault phase. */
    static final Rates BACKGROUND = new Rates(0.02, 0.05, 0.02, Duration.ofMillis(1_000));
    /** Faults during an {@link Kind#S3_ERRORS} step. */
    static final Rates BURST = new Rates(0.25, 0.25, 0.3, Duration.ofMillis(3_000));

    private final FaultSchedule schedule;
    private final Agents agents;
    private final TestPostgres postgres;
    private final String metadataUrl;
    private final S3FaultProxy s3;
    private final Map<Kind, Integer> injected = new EnumMap<>(Kind.class);
    private final List<String> timeline = new ArrayList<>();
    private int sessionsTerminated;
    private long startedAt;

    Nemesis(FaultSchedule schedule, Agents agents, TestPostgres postgres, String metadataUrl, S3FaultProxy s3) {
        this.schedule = schedule;
        this.agents = agents;
        this.postgres = postgres;
        this.metadataUrl = metadataUrl;
        this.s3 = s3;
        for (Kind kind : Kind.values()) {
            injected.put(kind, 0);
        }
    }

    /** Runs the steps due within {@code length} from now, then heals everything. */
    void run(Duration length) throws Exception {
        startedAt = System.nanoTime();
        long end = startedAt + length.toNanos();
        s3.rates(BACKGROUND);
        try {
            for (Step step : schedule.steps()) {
                long due = startedAt + TimeUnit.MILLISECONDS.toNanos(step.atMs());
                TimeUnit.NANOSECONDS.sleep(due - System.nanoTime()); // pacing the schedule, not synchronization
                if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.durationMs()) - end > 0) {
                    break; // it would outlast the phase (an agent's restart still may, by its start-up time)
                }
                agents.reviveCrashed();
                inject(step);
            }
            TimeUnit.NANOSECONDS.sleep(end - System.nanoTime()); // the rest of the phase, with background faults
        } finally {
            heal();
        }
    }

    /** Kinds of steps injected, with how many. */
    Map<Kind, Integer> injected() {
        return Map.copyOf(injected);
    }

    int sessionsTerminated() {
        return sessionsTerminated;
    }

    List<String> timeline() {
        return List.copyOf(timeline);
    }

    private void inject(Step step) throws Exception {
        mark("start " + step);
        switch (step.kind()) {
            case AGENT_KILL -> {
                agents.kill(step.nodeId());
                pause(step.durationMs());
                agents.start(step.nodeId());
            }
            case POSTGRES_RESTART -> {
                postgres.stopServer();
                pause(step.durationMs());
                postgres.startServer();
            }
            case POSTGRES_SESSIONS_KILLED -> sessionsTerminated += postgres.terminateSessions(metadataUrl);
            case S3_ERRORS -> {
                s3.rates(BURST);
                // At least one of each in every burst, whatever the draws.
                s3.slowDownNext(1);
                s3.loseNextPutResponses(1);
                pause(step.durationMs());
                s3.rates(BACKGROUND);
            }
            case S3_CONNECTIONS_CUT -> s3.cutConnections();
        }
        injected.merge(step.kind(), 1, Integer::sum);
        mark("end " + step.kind());
    }

    private void heal() throws Exception {
        s3.heal();
        postgres.startServer(); // a no-op unless a step was interrupted while it was down
        agents.reviveCrashed();
        for (int nodeId : agents.nodeIds()) {
            agents.start(nodeId); // a no-op for a running agent
        }
        mark("healed");
    }

    private void mark(String what) {
        timeline.add(String.format("%.1fs %s", (System.nanoTime() - startedAt) / 1e9, what));
    }

    private static void pause(long millis) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(millis); // how long the fault lasts: pacing, not synchronization
    }
}
