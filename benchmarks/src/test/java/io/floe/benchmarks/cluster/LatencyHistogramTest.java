package io.floe.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void percentilesAreNearestRank() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int ms = 1; ms <= 100; ms++) {
            histogram.record(ms);
        }

        assertThat(histogram.count()).isEqualTo(100);
        assertThat(histogram.percentileMs(0.5)).isEqualTo(50);
        assertThat(histogram.percentileMs(0.99)).isEqualTo(99);
        assertThat(histogram.percentileMs(0.999)).isEqualTo(100);
        assertThat(histogram.maxMs()).isEqualTo(100);
        assertThat(new LatencyHistogram().percentileMs(0.5)).isZero();
    }

    @Test
    void mergesAndSurvivesItsFileFormat() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(10);
        a.record(10);
        b.record(30);
        b.record(-5); // a clock step: counted as 0

        a.add(b);
        LatencyHistogram copy = LatencyHistogram.parse(a.lines());

        assertThat(copy.count()).isEqualTo(4);
        assertThat(copy.percentileMs(0.25)).isZero();
        assertThat(copy.percentileMs(0.5)).isEqualTo(10);
        assertThat(copy.percentileMs(1.0)).isEqualTo(30);
        assertThat(copy.lines()).isEqualTo(a.lines());
    }

    @Test
    void latenciesBeyondTheBucketsKeepTheirExactMaximum() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(5);
        histogram.record(LatencyHistogram.BUCKETS_MAX_MS + 5_000);

        assertThat(histogram.percentileMs(1.0)).isEqualTo(LatencyHistogram.BUCKETS_MAX_MS + 5_000);
        assertThat(LatencyHistogram.parse(histogram.lines()).maxMs())
                .isEqualTo(LatencyHistogram.BUCKETS_MAX_MS + 5_000);
    }
}
