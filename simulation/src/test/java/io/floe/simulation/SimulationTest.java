package io.floe.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the simulation for many seeds: {@code -Dsim.seeds=N} (default 500) consecutive seeds from
 * {@code -Dsim.from} (default 1, so every build checks the same seeds and a red build is never luck;
 * {@code -Dsim.from=random} explores a range drawn for the run and printed), or exactly one with
 * {@code -Dsim.seed=S}. A failing seed prints the command that replays it.
 */
class SimulationTest {

    @TempDir
    Path tempDir;

    @Test
    void everySeedKeepsTheInvariants() {
        List<Long> seeds = seeds();
        List<SimulationResult> failed = new ArrayList<>();
        long steps = 0;
        long faults = 0;
        long acknowledged = 0;
        Map<String, Long> horizon = new TreeMap<>();
        long started = System.nanoTime();
        Path scratch = scratch();
        List<SimulationResult> results = runAll(seeds, scratch);
        for (SimulationResult result : results) {
            long seed = result.seed();
            steps += result.steps();
            faults += result.faultCount();
            acknowledged += result.valuesAcknowledged();
            addLongHorizon(horizon, result.longHorizon());
            if (!result.passed() || seeds.size() == 1 || Boolean.getBoolean("sim.verbose")) {
                System.out.println(result.summary());
                result.violations()
                        .forEach((invariant, details) ->
                                details.forEach(detail -> System.out.println("  " + invariant + ": " + detail)));
            }
            if (!result.passed()) {
                failed.add(result);
                System.out.println("  replay: mvn -o -pl simulation -am test -Dtest=SimulationTest"
                        + " -Dsurefire.failIfNoSpecifiedTests=false -Dsim.seed=" + seed);
            }
        }
        if (!scratch.equals(tempDir)) {
            try {
                Files.deleteIfExists(scratch);
            } catch (IOException e) {
                System.out.println("cannot remove " + scratch + ": " + e);
            }
        }
        System.out.printf(
                "simulation: %d seeds from %d, %d steps, %d faults injected, %d values acknowledged and"
                        + " checked, %d failed, %.1f s%n",
                seeds.size(),
                seeds.get(0),
                steps,
                faults,
                acknowledged,
                failed.size(),
                (System.nanoTime() - started) / 1e9);
        System.out.println("long horizon: " + horizon);
        assertThat(failed).extracting(SimulationResult::summary).isEmpty();
    }

    /** The long horizon's figures over all runs: the fewest days, the most rows, the sum of every count. */
    private static void addLongHorizon(Map<String, Long> total, Map<String, Long> run) {
        if (run.isEmpty()) {
            return;
        }
        total.merge("runs", 1L, Long::sum);
        run.forEach((figure, value) -> {
            if (figure.equals("days")) {
                total.merge("days min", value, Math::min);
            } else if (figure.endsWith(" max")) {
                total.merge(figure, value, Math::max);
            } else {
                total.merge(figure, value, Long::sum);
            }
        });
    }

    /**
     * Runs the seeds on as many threads as there are processors ({@code -Dsim.threads} to change it):
     * each run is single-threaded and shares nothing with the others, so this changes no run.
     */
    private static List<SimulationResult> runAll(List<Long> seeds, Path scratch) {
        int threads = Integer.getInteger("sim.threads", Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, seeds.size())));
        try {
            List<Future<SimulationResult>> runs = new ArrayList<>();
            for (long seed : seeds) {
                runs.add(pool.submit(() -> Simulation.run(seed, scratch)));
            }
            List<SimulationResult> results = new ArrayList<>();
            for (Future<SimulationResult> run : runs) {
                results.add(run.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a simulation run failed outside its checks", e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Where each run keeps its SQLite file: memory-backed /dev/shm when there is one (the store fsyncs
     * every commit, which on a disk would make the fsyncs, not the code, the cost of a run).
     */
    private Path scratch() {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            try {
                return Files.createTempDirectory(shm, "floe-simulation-");
            } catch (IOException e) {
                return tempDir;
            }
        }
        return tempDir;
    }

    private static List<Long> seeds() {
        String one = System.getProperty("sim.seed");
        if (one != null) {
            return List.of(Long.parseLong(one));
        }
        int count = Integer.getInteger("sim.seeds", 500);
        String start = System.getProperty("sim.from", "1");
        long from = start.equals("random") ? System.nanoTime() % 1_000_000_000L : Long.parseLong(start);
        List<Long> seeds = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            seeds.add(from + i);
        }
        return seeds;
    }
}
