package io.floe.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The seeds that found bugs, run on every build. A fix changes what the code does and so the schedule a
 * seed draws: a seed no longer replays its old failure step for step, but it keeps exercising the
 * same configuration and fault mix. Each bug also has a focused test of its own (named here).
 */
class RegressionSeedsTest {

    @TempDir
    Path scratch;

    @ParameterizedTest(name = "seed {0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1     | issue 27, defect 2: a compact-only changelog kept a transaction marker per transaction ever run (MetadataRowsBounded, the long horizon)",
                "7     | issue 27, defect 3: OffsetFetch(require_stable) read committed and pending offsets in two store reads, an EndTxn between them (StableOffsetFetch, ExactlyOnceOutput)",
                "63    | issue 27, defect 6: a paused coordinator's TxnOffsetCommit from a member of an ended generation, without the lease (GenerationFencing, ExactlyOnceOutput)",
                "2     | a batch that overtook its producer's earlier one was stored first, and the earlier one's retry was answered as a duplicate: acknowledged, never stored (SequenceCheck; three agents, no faults)",
                "8     | as 2, after failed uploads and crashes (SequenceCheck)",
                "101   | the simulated producer multiplied its retries while no agent was live (runaway)",
                "1017  | OFFSET_OUT_OF_RANGE above the real high watermark: a view reloaded meanwhile was older (FetchReader)",
                "1036  | OFFSET_OUT_OF_RANGE above the real high watermark, with crashes (FetchReader)",
                "1048  | a fetch below a moved log start skipped records silently (FetchReader)",
                "7007  | records expired before a table's first round (the job's documented skip; the checker allows it)",
                "30167 | retention removed what the table was about to read: the hold was written only after commits (RetentionHold)",
                "30294 | a restarted single agent never showed records a retry was answered as duplicates (AgentTest)",
                "30479 | a single agent's view stayed behind after commits with lost answers (FetchService)",
                "30978 | as 30294, with crashes in store calls",
                "815184455 | a stale view whose records had all expired answered empty fetches for good (FetchReader)",
                "815184650 | as 815184455, one agent restarted six times, with Tableflow; later, an agent whose start failed ran on beside its successor and aborted transactions the successor's views never saw (SimAgent)"
            })
    void staysFixed(long seed, String bug) {
        SimulationResult result = Simulation.run(seed, scratch);
        assertThat(result.violations())
                .as("seed %d (%s): %s", seed, bug, result.summary())
                .isEmpty();
    }
}
