package io.floe.benchmarks.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples every agent's object-store PUT count and the machine's load average once a second during a phase, so the
 * report can give the highest PUT rate of each agent over any window of a few seconds, not only the phase's mean.
 */
final class RateSampler implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(RateSampler.class);
    static final String PUTS = "floe_objectstore_requests_seconds_count";
    static final Map<String, String> PUT = Map.of("kind", "PUT");
    private static final long PERIOD_MS = 1_000;

    /** One sample: when, each agent's PUT count so far, the load average. */
    record Sample(long nanos, double[] puts, double loadAverage) {}

    private final List<AgentNode> agents;
    private final List<Sample> samples = new ArrayList<>();
    private final ScheduledExecutorService scheduler;

    RateSampler(List<AgentNode> agents) {
        this.agents = agents;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rate-sampler");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleAtFixedRate(this::sample, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    private void sample() {
        try {
            double[] puts = new double[agents.size()];
            for (int i = 0; i < agents.size(); i++) {
                puts[i] = agents.get(i).scrape().sum(PUTS, PUT);
            }
            Sample sample = new Sample(System.nanoTime(), puts, Snapshot.currentLoadAverage());
            synchronized (samples) {
                samples.add(sample);
            }
        } catch (Exception e) {
            LOGGER.debug("sample failed: {}", e.toString());
        }
    }

    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    List<Double> loadAverages() {
        return samples().stream().map(Sample::loadAverage).toList();
    }

    /**
     * The highest PUT rate of agent {@code index} over any window of at least {@code windowSeconds} between two
     * samples; 0 with fewer than two samples that far apart.
     */
    static double peakRate(List<Sample> samples, int index, double windowSeconds) {
        double peak = 0;
        int j = 0;
        for (int i = 0; i < samples.size(); i++) {
            j = Math.max(j, i + 1);
            while (j < samples.size()
                    && (samples.get(j).nanos() - samples.get(i).nanos()) / 1e9 < windowSeconds) {
                j++;
            }
            if (j >= samples.size()) {
                break;
            }
            double seconds = (samples.get(j).nanos() - samples.get(i).nanos()) / 1e9;
            peak = Math.max(peak, (samples.get(j).puts()[index] - samples.get(i).puts()[index]) / seconds);
        }
        return peak;
    }

    /** The samples as CSV: seconds since the first, load average, then each agent's PUTs so far. */
    static List<String> csv(List<Sample> samples) {
        List<String> lines = new ArrayList<>();
        StringBuilder header = new StringBuilder("seconds,load");
        int agents = samples.isEmpty() ? 0 : samples.get(0).puts().length;
        for (int i = 1; i <= agents; i++) {
            header.append(",puts_agent_").append(i);
        }
        lines.add(header.toString());
        for (Sample sample : samples) {
            StringBuilder line = new StringBuilder(String.format(
                    java.util.Locale.ROOT,
                    "%.1f,%.2f",
                    (sample.nanos() - samples.get(0).nanos()) / 1e9,
                    sample.loadAverage()));
            for (double puts : sample.puts()) {
                line.append(',').append((long) puts);
            }
            lines.add(line.toString());
        }
        return lines;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
