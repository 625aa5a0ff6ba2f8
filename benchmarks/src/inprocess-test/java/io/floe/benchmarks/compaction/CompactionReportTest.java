package io.floe.benchmarks.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.maintenance.MaintenanceConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompactionReportTest {

    private static final PartitionDigest DIGEST = new PartitionDigest(10, 0, 9, 0xcafeL);
    private static final CompactionRun COMPACTION = new CompactionRun(1, 1, 2_000_000_000L, 4_000, 0, 2_000, 1, 0, 8,
            1, 1_000_000, 8);

    @Test
    void theFastestPassAfterTheWarmUpIsCompared() {
        List<ReadPass> passes = List.of(pass("x, pass 1", 1), pass("x, pass 2", 5), pass("x, pass 3", 3));
        assertThat(CompactionReport.fastest(passes).label()).isEqualTo("x, pass 3");
        assertThat(CompactionReport.fastest(passes.subList(0, 1)).label()).isEqualTo("x, pass 1");
    }

    @Test
    void reportsCostReadsAndCheck() {
        CompactionOptions options = CompactionOptions.parse(new String[] {"--records", "10", "--batch-records", "10",
                "--partitions", "1"});
        Measurements m = new Measurements(1_000_000_000L, 900, 8, 2_000, new Storage(8, 2_000, 0, 8, 2_000),
                List.of(pass("uncompacted, pass 1", 4), pass("uncompacted, pass 2", 2), pass("uncompacted, pass 3", 3)),
                COMPACTION, new Storage(1, 2_000, 0, 1, 2_000),
                List.of(pass("compacted, pass 1", 2), pass("compacted, pass 2", 1), pass("compacted, pass 3", 4)));
        String markdown = new CompactionReport(options, MaintenanceConfig.DEFAULTS, 1_000, m)
                .markdown("2026-11-30", "benchmarks/run-compaction.sh", "2 cores", "load 1.0");
        assertThat(markdown)
                .contains("| read amplification (read / ingested) | 2.00 |")
                .contains("| write amplification (written / ingested) | 1.00 |")
                .contains("| compacted / uncompacted (pass 2 vs pass 2) | 1.00 | 1.000 | | 0.50 | 2.00 | 2.00 | 0.50 "
                        + "| 0.50 |")
                .contains("Check passed: all 6 passes read the same 10 records")
                .contains("Command: `benchmarks/run-compaction.sh`");
    }

    /** A pass over one partition whose fetches took {@code fetchSeconds}. */
    private static ReadPass pass(String label, long fetchSeconds) {
        return new ReadPass(label, fetchSeconds * 2_000_000_000L, fetchSeconds * 1_000_000_000L,
                fetchSeconds * 500_000_000L, 3, 1 << 20, 10, 4, 1 << 20, 0, List.of(DIGEST));
    }
}
