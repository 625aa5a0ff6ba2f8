package io.floe.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seed is a replay: two runs of one seed take the same schedule, step for step, and end alike. When
 * they do not, the failure shows the steps around the first difference (which executor ran what, and
 * when), which is where the nondeterminism crept in (an identity hash, a random UUID, real time).
 */
class ReplayTest {

    @TempDir
    Path scratch;

    @AfterEach
    void stopTracing() {
        World.trace = null;
    }

    @Test
    void aSeedReplaysItsRunExactly() {
        for (long seed : new long[] {7, 101, 7004}) {
            World.trace = new ArrayList<>();
            SimulationResult first = Simulation.run(seed, scratch);
            List<String> firstTrace = World.trace;
            World.trace = new ArrayList<>();
            SimulationResult second = Simulation.run(seed, scratch);
            assertThat(World.trace)
                    .as(
                            "seed %d: the steps around the first difference:%n%s",
                            seed, firstDifference(firstTrace, World.trace))
                    .isEqualTo(firstTrace);
            assertThat(second.summary()).isEqualTo(first.summary());
        }
    }

    private static String firstDifference(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!a.get(i).equals(b.get(i))) {
                StringBuilder around = new StringBuilder();
                for (int j = Math.max(0, i - 8); j <= i; j++) {
                    around.append("first:  ")
                            .append(a.get(j))
                            .append("\nsecond: ")
                            .append(b.get(j))
                            .append('\n');
                }
                return around.toString();
            }
        }
        return "none in the first " + Math.min(a.size(), b.size()) + " steps; the lengths differ";
    }
}
