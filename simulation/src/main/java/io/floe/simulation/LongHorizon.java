package io.floe.simulation;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A month of a run, after its chaos and heal phases: bursts of work by a {@link StreamsApp} between
 * quiet periods of hours to days, then the application stopped and the clock moved past every horizon
 * (retention, {@code delete.retention.ms}, producer-id, transactional-id and offset expiry), so that
 * what keeps state for months is checked by what is left ({@link MetadataRows}).
 *
 * <p>A quiet period costs no steps: either the whole cluster is frozen (every process paused, as a
 * host that slept; its timers fire late, leases and sessions have run out) or the application stops
 * cleanly, every agent stops, and all start afresh afterwards. In a burst, faults come back at a third of the
 * run's rates, an idempotent producer writes the input, and the seed may make a stream thread stall
 * (a long GC) right after it sent its offsets, for longer than its session (it is evicted while its
 * transaction stays open), or freeze the group's coordinator right after it got a thread's
 * TxnOffsetCommit (the coordinator resumes as a zombie that trusts its memory), or pause an agent at
 * some moment. Each burst ends with a drain: faults off, until the application has processed all its
 * input, when the {@link StreamsChecker} checks every input record.
 */
final class LongHorizon {

    static final long SECOND = 1_000_000_000L;
    static final long DAY = 86_400 * SECOND;
    /** The month every run covers, at least. */
    static final long TOTAL_MIN = 30 * DAY;
    /** A quiet period between bursts stays below a week: the group's offsets must outlive it (offsets.retention). */
    private static final long QUIET_MAX = 6 * DAY + 12 * 3_600 * SECOND;

    private static final long QUIET_MIN = 3_600 * SECOND;
    private static final int QUIET_PERIODS = 1;
    private static final double BURST_FAULTS_SHARE = 0.3;
    private static final long DRAIN_MAX = 120 * SECOND;
    /** The stop after the last burst: long enough for offsets (7 days) and producer ids (1 day) to expire. */
    private static final long FINAL_QUIET_MIN = 8 * DAY;
    /**
     * Then two more waits past {@code delete.retention.ms} (1 day), a cleaning after each: as Kafka's
     * cleaner, the first pass over a cleanable section keeps its tombstones for that long, the second
     * removes them (and the markers of transactions left empty get their horizon), the third those markers.
     */
    private static final long AFTER_CLEANING = DAY + 3_600 * SECOND;

    private static final int CLEANINGS_AFTER = 2;
    /** Two key compaction rounds and more after a wait (one may find batches that segment compaction just moved). */
    private static final long CLEANING_RUN = 12 * SECOND;
    /** Ten cleanup rounds and more (every tenth lists the store for objects no row knows). */
    private static final long FINAL_RUN = 22 * SECOND;

    /**
     * What the long horizon needs of its run: {@code afterEachStep} checks the index after every step,
     * {@code readLogs} reads every log back from the objects and {@code checkTables} the tables (at each
     * drain: they change little between, and these reads would cost a month of steps most).
     */
    record Run(
            World world,
            Cluster cluster,
            Faults faults,
            History history,
            MetadataStore metadata,
            SimExecutor clients,
            Runnable afterEachStep,
            Runnable readLogs,
            Runnable checkTables) {}

    private final Run run;
    private final StreamsApp app;
    private final boolean tablesAllMonth;
    private final Map<String, Long> figures = new TreeMap<>();
    private int producers;
    private long quietNanos;
    private java.time.Instant lastQuietBegan;

    /** {@code tablesAllMonth}: Tableflow runs on through the month (else it stops when the month begins). */
    LongHorizon(Run run, StreamsApp app, boolean tablesAllMonth) {
        this.run = run;
        this.app = app;
        this.tablesAllMonth = tablesAllMonth;
    }

    /** When the last quiet period began: objects made before it must be referenced or gone at the end. */
    java.time.Instant lastQuietBegan() {
        return lastQuietBegan;
    }

    /** The run's figures: days, quiet periods, the application's transactions and records, the checks' counts. */
    Map<String, Long> figures() {
        return figures;
    }

    void run() {
        World world = run.world();
        long started = world.nanoTime();
        long stepsBefore = world.steps();
        if (!tablesAllMonth) {
            run.cluster().stopTableflow();
        }
        app.timeline().offsetsKept(true);
        app.start();
        for (int burst = 0; burst <= QUIET_PERIODS; burst++) {
            SimProducer input = burst();
            drain();
            if (!input.done()) {
                // Its retries would outlive its producer state (a day) and then never succeed.
                figures.merge("input producers closed unanswered", 1L, Long::sum);
                input.close();
            }
            if (burst < QUIET_PERIODS) {
                quiet(world.between(QUIET_MIN, QUIET_MAX), world.random().nextBoolean());
            }
        }
        app.stop();
        runWhile(() -> !app.stopped(), 30 * SECOND);
        app.retire();
        app.timeline().offsetsKept(false);
        long finalQuiet =
                Math.max(FINAL_QUIET_MIN, TOTAL_MIN - CLEANINGS_AFTER * AFTER_CLEANING - (world.nanoTime() - started));
        world.jump(finalQuiet);
        quietNanos += finalQuiet;
        runFor(CLEANING_RUN);
        for (int cleaning = 1; cleaning <= CLEANINGS_AFTER; cleaning++) {
            boolean last = cleaning == CLEANINGS_AFTER;
            if (last) {
                // Past the orphan grace and the delete delay too: what was left before goes (a listing of
                // the store included, every tenth cleanup round).
                lastQuietBegan = world.clock().instant();
            }
            world.jump(AFTER_CLEANING);
            quietNanos += AFTER_CLEANING;
            runFor(last ? FINAL_RUN : CLEANING_RUN);
        }
        MetadataRows.check(run.metadata(), run.metadata(), run.metadata(), app, run.history(), figures);
        figures.put("days", (world.nanoTime() - started) / DAY);
        figures.put("steps", world.steps() - stepsBefore);
        figures.put("quiet days", quietNanos / DAY);
        figures.put("txn committed", (long) app.committedTransactions());
        figures.put("txn aborted", (long) app.abortedTransactions());
        figures.put("inputs", app.checker().inputsRead());
        figures.put("outputs", app.checker().outputsCommitted());
        figures.put("excused", app.checker().excused());
        figures.put("fetches checked", app.timeline().fetchesChecked());
        figures.put("commits checked", app.timeline().commitsChecked());
        figures.put("races", (long) app.races().triggered());
    }

    /** Faults back at a third of their rates, input written, and maybe a thread stalled or a coordinator frozen. */
    private SimProducer burst() {
        World world = run.world();
        long began = world.nanoTime();
        run.faults().resume(BURST_FAULTS_SHARE);
        run.cluster().killRate(world.chance(0.2) ? 0.05 : 0);
        SimProducer input = new SimProducer(
                100 + ++producers,
                world,
                run.cluster(),
                run.history(),
                run.clients(),
                run.metadata().allocateProducerId(),
                List.of(app.topic(StreamsApp.INPUT)),
                8 + world.random().nextInt(12),
                500_000_000L);
        List<StreamsTask> threads = app.threads();
        StreamsTask chosen = threads.get(world.random().nextInt(threads.size()));
        if (world.chance(0.4)) {
            // Past its session (evicted), within its transaction timeout (still open when it resumes).
            long session = app.sessionTimeoutMs() * 1_000_000L;
            chosen.stallAfterNextOffsets(world.between(session + 2 * SECOND, session + 8 * SECOND));
        } else if (world.chance(0.7)) {
            // Input for one partition only: its owner commits into the frozen coordinator, the other threads,
            // idle, see it silent, rejoin elsewhere and take the partition over.
            input.onlyTo(world.random().nextInt(app.inputPartitions().size()));
            app.pauseCoordinatorAtNextOffsets(world.between(18 * SECOND, 29 * SECOND));
        }
        input.start();
        if (world.chance(0.3)) {
            long at = world.between(0, 8 * SECOND);
            long pause = world.between(SECOND, 15 * SECOND);
            run.clients()
                    .schedule(
                            () -> {
                                SimAgent agent = run.cluster().anyLiveAgent();
                                if (agent != null) {
                                    run.cluster().pause(agent, pause);
                                }
                            },
                            at,
                            TimeUnit.NANOSECONDS);
        }
        runFor(world.between(5 * SECOND, 9 * SECOND));
        runWhile(() -> !input.done(), 60 * SECOND);
        figures.merge("burst s", (world.nanoTime() - began) / SECOND, Long::sum);
        return input;
    }

    /** Faults off until the application processed every input record; then every input is checked. */
    private void drain() {
        long began = run.world().nanoTime();
        run.faults().heal();
        run.cluster().heal();
        for (StreamsTask thread : app.threads()) {
            thread.stallAfterNextOffsets(0);
        }
        app.pauseCoordinatorAtNextOffsets(0);
        if (!runWhile(() -> !(app.idle() && caughtUp()), DRAIN_MAX)) {
            run.history()
                    .violation(
                            "StreamsCatchUp",
                            "the application has not processed its input " + DRAIN_MAX / SECOND
                                    + " s after the faults stopped: group offsets "
                                    + run.metadata().committedOffsets(app.applicationId()) + ", ends "
                                    + ends() + ", started over " + app.startOvers() + ", threads " + app.describe()
                                    + ", agents " + views());
        }
        app.checker().checkDrained();
        run.readLogs().run();
        if (tablesAllMonth) {
            run.checkTables().run();
        }
        figures.merge("drain s", (run.world().nanoTime() - began) / SECOND, Long::sum);
    }

    /** Each live agent's view: the agents it sees and the one it names the application group's coordinator. */
    private String views() {
        StringBuilder views = new StringBuilder();
        for (SimAgent agent : run.cluster().liveAgents()) {
            views.append(agent)
                    .append(agent.node().pausedUntil() > run.world().nanoTime() ? " (paused)" : "")
                    .append(" sees ")
                    .append(agent.agent().cluster().liveAgents().stream()
                            .map(node -> node.nodeId())
                            .toList())
                    .append(" coordinator ")
                    .append(agent.agent()
                            .cluster()
                            .coordinatorOf(app.applicationId())
                            .nodeId())
                    .append("; ");
        }
        return views.toString();
    }

    private Map<Integer, Long> ends() {
        Map<Integer, Long> ends = new TreeMap<>();
        app.inputPartitions()
                .forEach(tp ->
                        ends.put(tp.partition(), run.metadata().offsets(tp).highWatermark()));
        return ends;
    }

    private boolean caughtUp() {
        Map<TopicPartition, CommittedOffset> committed = run.metadata().committedOffsets(app.applicationId());
        for (TopicPartition input : app.inputPartitions()) {
            long end = run.metadata().offsets(input).highWatermark();
            CommittedOffset offset = committed.get(input);
            if (end > 0 && (offset == null || offset.offset() < end)) {
                return false;
            }
        }
        return true;
    }

    /**
     * A quiet period: the whole cluster frozen ({@code frozen}), or the application stopped cleanly and
     * every agent stopped, then all started afresh.
     */
    private void quiet(long nanos, boolean frozen) {
        quietNanos += nanos;
        if (frozen) {
            run.faults().count("quiet period, frozen");
            run.world().jump(nanos);
            return;
        }
        run.faults().count("quiet period, stopped");
        app.stop();
        runWhile(() -> !app.stopped(), 30 * SECOND);
        app.retire();
        run.cluster().killAll();
        run.world().jump(nanos);
        app.start();
    }

    private void runFor(long nanos) {
        run.world().runUntil(run.world().nanoTime() + nanos, run.afterEachStep());
    }

    /** Runs while {@code condition} holds, at most {@code nanos}; returns whether it stopped holding. */
    private boolean runWhile(java.util.function.BooleanSupplier condition, long nanos) {
        long deadline = run.world().nanoTime() + nanos;
        while (condition.getAsBoolean()) {
            if (run.world().nanoTime() >= deadline) {
                return false;
            }
            runFor(SECOND);
        }
        return true;
    }
}
