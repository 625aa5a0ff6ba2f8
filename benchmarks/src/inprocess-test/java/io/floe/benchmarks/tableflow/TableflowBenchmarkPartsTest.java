package io.floe.benchmarks.tableflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

/** The Tableflow driver's records, variants and medians; its figures are never pass/fail. */
class TableflowBenchmarkPartsTest {

    @Test
    void aRecordGoesToThePartitionAKafkaProducerPicksForItsKey() {
        for (long id = 0; id < 1000; id++) {
            byte[] key = EventRecords.key(id, 100_000);
            assertThat(EventRecords.partition(key, 6)).isEqualTo(BuiltInPartitioner.partitionForKey(key, 6));
        }
    }

    @Test
    void keysComeFromTheKeySpaceAndValuesAreAboutOneKibibyte() {
        Set<String> keys = new HashSet<>();
        for (long id = 0; id < 10_000; id++) {
            keys.add(new String(EventRecords.key(id, 100), StandardCharsets.UTF_8));
        }
        assertThat(keys).hasSize(100);
        assertThat(EventRecords.value(42)).hasSizeBetween(EventRecords.VALUE_BYTES - 2, EventRecords.VALUE_BYTES);
    }

    @Test
    void variantsParseAsTheReportNamesThem() {
        for (String name : List.of("append", "append+delta", "upsert", "upsert+delta")) {
            assertThat(Variant.parse(name).toString()).isEqualTo(name);
        }
        assertThat(Variant.parse("upsert+delta").configs(1000))
                .containsEntry("floe.tableflow.mode", "upsert")
                .containsEntry("floe.tableflow.delta.enabled", "true");
        assertThat(Variant.parse("append").configs(1000)).doesNotContainKey("floe.tableflow.delta.enabled");
        assertThatThrownBy(() -> Variant.parse("upsert+iceberg")).hasMessageContaining("upsert+iceberg");
        assertThatThrownBy(() -> Variant.parse("merge")).hasMessageContaining("merge");
    }

    @Test
    void theMedianOfAnEvenCountIsTheLowerMiddle() {
        assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 2.0), x -> x)).isEqualTo(2.0);
        assertThat(Stats.median(List.of(5.0, 1.0, 3.0), x -> x)).isEqualTo(3.0);
        assertThat(Stats.median(List.<Double>of(), x -> x)).isNaN();
    }
}
