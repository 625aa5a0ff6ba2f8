package io.floe.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Negative controls: with one guarantee removed, the simulation must report the invariant it protects
 * within a few seeds. A checker that stays green here would be proving nothing.
 */
class ControlsTest {

    private static final int SEEDS_MAX = 40;

    @TempDir
    Path scratch;

    @ParameterizedTest
    @CsvSource({
        "LOSSY_OBJECT_STORE, NoDanglingReference",
        "PRODUCERS_WITHOUT_IDEMPOTENCE, NoDuplicateAppend",
        "READ_COMMITTED_IGNORES_ABORTED, NoAbortedRead",
        "FETCH_IGNORES_LSO, LsoBounds",
        "COMMIT_STORED_AS_ABORT, NoCommittedLoss",
        "READ_COMMITTED_SKIPS_LATER_BATCHES, TxnAtomicVisibility",
        "STREAMS_IGNORE_UNSTABLE_OFFSETS, ExactlyOnceOutput"
    })
    void aRemovedGuaranteeIsReported(Control control, String invariant) {
        Map<Long, String> found = new TreeMap<>();
        for (long seed = 1; seed <= SEEDS_MAX && found.isEmpty(); seed++) {
            SimulationResult result = Simulation.run(seed, scratch, control);
            if (result.violations().containsKey(invariant)) {
                found.put(seed, result.violations().get(invariant).get(0));
            }
        }
        System.out.println(control + ": " + invariant + " reported " + found);
        assertThat(found)
                .as("%s reported within %d seeds", invariant, SEEDS_MAX)
                .isNotEmpty();
    }
}
