package io.floe.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateSamplerTest {

    @Test
    void peakRateIsTheHighestOverAnyWindowOfAtLeastTheGivenLength() {
        // Agent 0 does 2 PUTs a second, then 6 a second for 5 seconds, then nothing.
        List<RateSampler.Sample> samples = new ArrayList<>();
        double puts = 0;
        for (int second = 0; second <= 20; second++) {
            samples.add(new RateSampler.Sample(second * 1_000_000_000L, new double[] {puts, 0}, 1.0));
            puts += second < 5 ? 2 : second < 10 ? 6 : 0;
        }

        assertThat(RateSampler.peakRate(samples, 0, 5)).isEqualTo(6.0);
        assertThat(RateSampler.peakRate(samples, 0, 20)).isEqualTo((10 + 30) / 20.0);
        assertThat(RateSampler.peakRate(samples, 1, 5)).isZero();
        assertThat(RateSampler.peakRate(samples.subList(0, 3), 0, 5)).isZero();
    }
}
