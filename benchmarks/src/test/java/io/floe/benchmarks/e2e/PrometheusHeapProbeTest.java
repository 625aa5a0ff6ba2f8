package io.floe.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrometheusHeapProbeTest {

    @Test
    void sumsTheHeapPoolsAndIgnoresNonHeap() {
        String exposition = """
                # HELP jvm_memory_used_bytes The amount of used memory
                # TYPE jvm_memory_used_bytes gauge
                jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1.048576E7
                jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 2.097152E7
                jvm_memory_used_bytes{area="heap",id="G1 Survivor Space",} 1048576.0
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 5.0E7
                jvm_memory_max_bytes{area="heap",id="G1 Old Gen"} 1.073741824E9
                """;
        assertThat(PrometheusHeapProbe.heapUsedBytes(exposition)).hasValue(31L * 1024 * 1024);
    }

    @Test
    void isEmptyWithoutHeapSamples() {
        assertThat(PrometheusHeapProbe.heapUsedBytes("process_uptime_seconds 12.0\n")).isEmpty();
    }
}
