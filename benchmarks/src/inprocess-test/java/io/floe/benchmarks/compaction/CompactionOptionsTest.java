package io.floe.benchmarks.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class CompactionOptionsTest {

    @Test
    void defaultsAreTheIssueWorkload() {
        CompactionOptions options = CompactionOptions.parse(new String[0]);
        assertThat(options.records()).isEqualTo(2_000_000);
        assertThat(options.valueBytes()).isEqualTo(100);
        assertThat(options.batchRecords()).isEqualTo(100);
        assertThat(options.partitions()).isEqualTo(6);
        assertThat(options.flushInterval()).isEqualTo(Duration.ofMillis(20));
        assertThat(options.flushBytes()).isEqualTo(262_144);
        assertThat(options.targetBytes()).isEqualTo(64L << 20);
        assertThat(options.smallObjectBytes()).isEqualTo(16L << 20);
        assertThat(options.compactsWhileProducing()).isFalse();
        assertThat(options.readPasses()).isEqualTo(3);
        assertThat(options.markdownOut()).isEmpty();
        assertThat(options.keepDir()).isFalse();
    }

    @Test
    void parsesEveryOption() {
        CompactionOptions options = CompactionOptions.parse(new String[] {"--records", "1_000", "--value-bytes", "10",
                "--batch-records", "50", "--partitions", "3", "--flush-interval-ms", "5", "--flush-bytes", "4096",
                "--target-bytes", "8388608", "--compact-every-records", "500", "--read-passes", "2", "--out", "r.md",
                "--keep-dir"});
        assertThat(options.records()).isEqualTo(1_000);
        assertThat(options.valueBytes()).isEqualTo(10);
        assertThat(options.batchRecords()).isEqualTo(50);
        assertThat(options.partitions()).isEqualTo(3);
        assertThat(options.flushInterval()).isEqualTo(Duration.ofMillis(5));
        assertThat(options.flushBytes()).isEqualTo(4096);
        assertThat(options.targetBytes()).isEqualTo(8L << 20);
        assertThat(options.smallObjectBytes()).as("a quarter of the target").isEqualTo(2L << 20);
        assertThat(options.compactEveryRecords()).isEqualTo(500);
        assertThat(options.compactsWhileProducing()).isTrue();
        assertThat(options.readPasses()).isEqualTo(2);
        assertThat(options.markdownOut()).contains(Path.of("r.md"));
        assertThat(options.keepDir()).isTrue();
        assertThat(CompactionOptions.parse(new String[] {"--small-object-bytes", "1024"}).smallObjectBytes())
                .isEqualTo(1024);
    }

    @Test
    void rejectsBadValues() {
        assertThatThrownBy(() -> parse("--records", "0")).hasMessageContaining("--records 0 must be positive");
        assertThatThrownBy(() -> parse("--partitions", "six")).hasMessageContaining("not a whole number");
        assertThatThrownBy(() -> parse("--flush-bytes", "512")).hasMessageContaining("outside [1024, 8388608]");
        assertThatThrownBy(() -> parse("--target-bytes", "1000", "--small-object-bytes", "2000"))
                .hasMessageContaining("--small-object-bytes 2000 exceeds --target-bytes 1000");
        assertThatThrownBy(() -> parse("--compact-every-records", "150"))
                .hasMessageContaining("must be a multiple of --batch-records 100");
        assertThatThrownBy(() -> parse("--batch-records", "10000", "--value-bytes", "1000"))
                .hasMessageContaining("over max.message.bytes");
        assertThatThrownBy(() -> parse("--out")).hasMessageContaining("option --out needs a value");
        assertThatThrownBy(() -> parse("--bogus", "1")).hasMessageContaining("unknown option --bogus");
        assertThatThrownBy(() -> parse("--help")).hasMessageContaining("Usage: CompactionBenchmark");
    }

    @Test
    void batchBoundHoldsForTheRecordsTheBenchmarkProduces() {
        CompactionOptions options = CompactionOptions.parse(new String[] {"--batch-records", "100"});
        int actual = MemoryRecords.withRecords(Compression.NONE, records(100, 100)).sizeInBytes();
        assertThat(options.batchBytesMax()).isGreaterThanOrEqualTo(actual);
    }

    private static SimpleRecord[] records(int count, int valueBytes) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1_700_000_000_000L, null,
                    Ingest.value(Integer.MAX_VALUE + (long) i, valueBytes));
        }
        return records;
    }

    private static CompactionOptions parse(String... args) {
        return CompactionOptions.parse(args);
    }
}
