package io.floe.cli.e2e.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The faults of a run, planned from a seed before it starts, so a failing run's schedule replays
 * from its seed. Every kind comes once, in a shuffled order, before kinds are drawn at random; a step
 * starts at its planned time or when the step before it finished, whichever is later, and steps
 * that would end after the fault phase are dropped by the {@link Nemesis}.
 */
record FaultSchedule(long seed, List<Step> steps) {

    enum Kind {
        /** SIGKILL of an agent, down for {@code durationMs}, then started again as the same node. */
        AGENT_KILL,
        /** PostgreSQL crashed (immediate shutdown), down for {@code durationMs}, then started again. */
        POSTGRES_RESTART,
        /** pg_terminate_backend on every session of the agents' database. */
        POSTGRES_SESSIONS_KILLED,
        /** For {@code durationMs}, S3 requests fail with 503 SlowDown, wait, or lose PUT responses often. */
        S3_ERRORS,
        /** Every open connection through the S3 proxy cut at once. */
        S3_CONNECTIONS_CUT
    }

    /** One fault: what, where (an agent's node id, for kills), when and for how long. */
    record Step(long atMs, Kind kind, int nodeId, long durationMs) {
        @Override
        public String toString() {
            return String.format(
                    "%.1fs %s%s%s",
                    atMs / 1000.0,
                    kind,
                    nodeId > 0 ? " node " + nodeId : "",
                    durationMs > 0 ? " for " + durationMs + "ms" : "");
        }
    }

    private static final long FIRST_AT_MS = 2_000;
    private static final long GAP_MIN_MS = 1_000;
    private static final long GAP_MAX_MS = 3_000;

    /** The steps of a fault phase of {@code length} over agents {@code 1..agents}. */
    static FaultSchedule plan(long seed, Duration length, int agents) {
        Random random = new Random(seed);
        List<Kind> first = new ArrayList<>(Arrays.asList(Kind.values()));
        Collections.shuffle(first, random);
        List<Step> steps = new ArrayList<>();
        long at = FIRST_AT_MS;
        for (int i = 0; at < length.toMillis(); i++) {
            Kind kind = i < first.size() ? first.get(i) : Kind.values()[random.nextInt(Kind.values().length)];
            Step step = switch (kind) {
                case AGENT_KILL -> new Step(at, kind, 1 + random.nextInt(agents), between(random, 500, 4_000));
                case POSTGRES_RESTART -> new Step(at, kind, 0, between(random, 0, 5_000));
                case S3_ERRORS -> new Step(at, kind, 0, between(random, 2_000, 6_000));
                case POSTGRES_SESSIONS_KILLED, S3_CONNECTIONS_CUT -> new Step(at, kind, 0, 0);
            };
            steps.add(step);
            at += step.durationMs() + between(random, GAP_MIN_MS, GAP_MAX_MS);
        }
        return new FaultSchedule(seed, List.copyOf(steps));
    }

    private static long between(Random random, long min, long max) {
        return min + (long) (random.nextDouble() * (max - min));
    }

    @Override
    public String toString() {
        return steps.stream().map(Step::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
