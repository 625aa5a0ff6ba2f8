package io.floe.benchmarks.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one run measured, for {@link ClusterReport}. A phase that did not happen (a step before it failed) is empty;
 * {@code notes} say why. {@code partitionsLed}: node id to how many of the topic's partitions it leads.
 */
record ClusterRun(
        String startedAt,
        double loadAtStart,
        Map<Integer, Integer> partitionsLed,
        Optional<Phase> idle,
        Optional<Phase> produce,
        Optional<Phase> catchUp,
        Optional<Phase> steady,
        Optional<Tools.Produced> produced,
        Optional<Tools.Tailed> tailed,
        Optional<Tools.CaughtUp> caughtUp,
        Optional<Tools.Produced> steadyProduced,
        List<RateSampler.Sample> produceSamples,
        List<RateSampler.Sample> steadySamples,
        List<Long> agentPeakRssBytes,
        List<String> toolCommands,
        List<String> notes) {

    boolean complete() {
        return produce.isPresent()
                && catchUp.isPresent()
                && produced.map(p -> p.failures().isEmpty()).orElse(false)
                && caughtUp.map(c -> c.failure().isEmpty()).orElse(false)
                && tailed.map(t -> t.failure().isEmpty()).orElse(true);
    }
}
