package io.floe.benchmarks.cluster;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** What changed between two snapshots: one phase of the run (idle, produce, catch-up). */
record Phase(String name, Snapshot before, Snapshot after, LoadRange load) {

    /** The lowest and highest 1-minute load average seen during the phase. */
    record LoadRange(double min, double max) {
        static LoadRange of(List<Double> samples) {
            double min = samples.stream()
                    .mapToDouble(Double::doubleValue)
                    .filter(v -> v >= 0)
                    .min()
                    .orElse(-1);
            double max = samples.stream().mapToDouble(Double::doubleValue).max().orElse(-1);
            return new LoadRange(min, max);
        }
    }

    static Phase between(String name, Snapshot before, Snapshot after, List<Double> loadSamples) {
        List<Double> all = new java.util.ArrayList<>(loadSamples);
        all.add(before.loadAverage());
        all.add(after.loadAverage());
        return new Phase(name, before, after, LoadRange.of(all));
    }

    double seconds() {
        return (after.nanos() - before.nanos()) / 1e9;
    }

    int agents() {
        return after.agents().size();
    }

    /** The change of a counter (or of a summary's count or sum) at agent {@code index}. */
    double agent(int index, String metric, Map<String, String> labels) {
        return after.agents().get(index).sum(metric, labels)
                - before.agents().get(index).sum(metric, labels);
    }

    double agent(int index, String metric) {
        return agent(index, metric, Map.of());
    }

    /** The change of a counter summed over all agents. */
    double agents(String metric, Map<String, String> labels) {
        double sum = 0;
        for (int i = 0; i < agents(); i++) {
            sum += agent(i, metric, labels);
        }
        return sum;
    }

    /** Requests S3Proxy served during the phase for one operation. */
    double s3(String operation) {
        return after.s3().counts().getOrDefault(operation, 0.0)
                - before.s3().counts().getOrDefault(operation, 0.0);
    }

    /** S3Proxy's mean time to serve one request of {@code operation} during the phase; NaN when it served none. */
    double s3MeanSeconds(String operation) {
        double count = s3(operation);
        return count == 0
                ? Double.NaN
                : (after.s3().seconds().getOrDefault(operation, 0.0)
                                - before.s3().seconds().getOrDefault(operation, 0.0))
                        / count;
    }

    /** The operations S3Proxy saw by the end of the phase, sorted. */
    Set<String> s3Operations() {
        return new TreeSet<>(after.s3().counts().keySet());
    }

    /** Statements PostgreSQL ran in the phase, by normalized text, most frequent first. */
    List<Map.Entry<String, Long>> statements() {
        return after.statements().entrySet().stream()
                .map(e ->
                        Map.entry(e.getKey(), e.getValue() - before.statements().getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .toList();
    }

    PostgresServer.TransactionCounts transactions() {
        return after.transactions().minus(before.transactions());
    }
}
