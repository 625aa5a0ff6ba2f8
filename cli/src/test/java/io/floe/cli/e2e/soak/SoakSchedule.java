package io.floe.cli.e2e.soak;

import io.floe.cli.e2e.soak.SoakOptions.Range;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The faults of a soak, planned from its seed before it starts: after the baseline, pauses (SIGSTOP
 * past the agents' leases, then SIGCONT) and kills (SIGKILL, then a start on the same node id and
 * ports) one at a time with quiet gaps between them, and, when the fault phase has room, one pause
 * longer than the maintenance jobs' leases in its middle. A step names the role of its victim, not
 * an agent: which agent coordinates the application's group or transactions is only known when the
 * step runs, and the run's timeline records it.
 */
record SoakSchedule(long seed, List<Step> steps) {

    enum Kind {
        /** SIGSTOP for the step's length, then SIGCONT: the agent resumes as a zombie of its leases. */
        PAUSE,
        /** SIGKILL, down for the step's length, then started again as the same node. */
        KILL
    }

    /** Whose agent a step strikes, looked up when it runs. */
    enum Victim {
        /** The agent coordinating the Streams application's consumer group. */
        GROUP_COORDINATOR,
        /** The agent coordinating most of the application's transactional ids. */
        TRANSACTION_COORDINATOR,
        /** The agent numbered {@code (step's draw mod agents) + 1}. */
        ANY
    }

    /** One fault: when it starts (from the run's start), what, whose agent, and for how long. */
    record Step(Duration at, Kind kind, Victim victim, int draw, Duration length) {
        @Override
        public String toString() {
            return String.format("%ds %s %s for %ds", at.toSeconds(), kind, victim, length.toSeconds());
        }
    }

    /** The steps from {@code options.baselineAt()} to the end of the run. */
    static SoakSchedule plan(SoakOptions options) {
        Random random = new Random(options.seed());
        List<Step> steps = new ArrayList<>();
        Duration end = options.run();
        Duration start = options.baselineAt();
        Duration phase = end.minus(start);
        Duration longPause = options.longPause();
        boolean longPlanned = longPause.isZero()
                || longPause.plus(options.faultGap().min().multipliedBy(2)).compareTo(phase) > 0;
        Duration longAt = start.plus(phase.minus(longPause).dividedBy(2));
        Duration at = start.plus(draw(random, options.faultGap()));
        Kind next = random.nextBoolean() ? Kind.PAUSE : Kind.KILL;
        while (true) {
            boolean isLong = !longPlanned && at.compareTo(longAt) >= 0;
            Step step;
            if (isLong) {
                step = new Step(at, Kind.PAUSE, Victim.GROUP_COORDINATOR, random.nextInt(1 << 16), longPause);
                longPlanned = true;
            } else {
                Victim victim = Victim.values()[random.nextInt(Victim.values().length)];
                Range lengths = next == Kind.PAUSE ? options.shortPause() : options.killDown();
                step = new Step(at, next, victim, random.nextInt(1 << 16), draw(random, lengths));
                next = next == Kind.PAUSE ? Kind.KILL : Kind.PAUSE;
            }
            if (at.plus(step.length()).compareTo(end) > 0) {
                if (isLong) {
                    continue; // the long pause does not fit after all: the short steps go on without it
                }
                break;
            }
            steps.add(step);
            at = at.plus(step.length()).plus(draw(random, options.faultGap()));
        }
        return new SoakSchedule(options.seed(), List.copyOf(steps));
    }

    private static Duration draw(Random random, Range range) {
        long span = range.max().toMillis() - range.min().toMillis();
        return range.min().plusMillis(span == 0 ? 0 : (long) (random.nextDouble() * span));
    }

    long count(Kind kind) {
        return steps.stream().filter(step -> step.kind() == kind).count();
    }

    @Override
    public String toString() {
        return steps.stream().map(Step::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
