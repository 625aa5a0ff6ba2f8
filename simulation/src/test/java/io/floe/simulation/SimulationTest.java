package io.floe.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the simulation for many seeds: {@code -Dsim.seeds=N} (default 500) consecutive seeds from
 * {@code -Dsim.from} (default: a seed drawn for this run and printed), or exactly one with
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
        long started = System.nanoTime();
        Path scratch = scratch();
        for (long seed : seeds) {
            SimulationResult result = Simulation.run(seed, scratch);
            steps += result.steps();
            faults += result.faultCount();
            acknowledged += result.valuesAcknowledged();
            if (!result.passed() || seeds.size() == 1 || Boolean.getBoolean("sim.verbose")) {
                System.out.println(result.summary());
                result.violations().forEach((invariant, details) -> details.forEach(
                        detail -> System.out.println("  " + invariant + ": " + detail)));
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
        System.out.printf("simulation: %d seeds from %d, %d steps, %d faults injected, %d values acknowledged and"
                + " checked, %d failed, %.1f s%n", seeds.size(), seeds.get(0), steps, faults, acknowledged,
                failed.size(), (System.nanoTime() - started) / 1e9);
        assertThat(failed).extracting(SimulationResult::summary).isEmpty();
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
        long from = Long.getLong("sim.from", System.nanoTime() % 1_000_000_000L);
        List<Long> seeds = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            seeds.add(from + i);
        }
        return seeds;
    }
}
