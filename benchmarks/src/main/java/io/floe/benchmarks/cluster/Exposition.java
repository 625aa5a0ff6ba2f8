package io.floe.benchmarks.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape of a Prometheus text exposition (an agent's {@code /metrics}, S3Proxy's metrics endpoint), as samples
 * that can be summed by name and labels. Comments, {@code # HELP} and {@code # TYPE} lines are skipped; a sample's
 * optional timestamp is ignored.
 */
final class Exposition {

    /** One sample: {@code name{labels} value}. */
    record Sample(String name, Map<String, String> labels, double value) {}

    static final Exposition EMPTY = new Exposition(List.of());

    private final List<Sample> samples;

    private Exposition(List<Sample> samples) {
        this.samples = samples;
    }

    static Exposition parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            samples.add(sample(line));
        }
        return new Exposition(List.copyOf(samples));
    }

    List<Sample> samples() {
        return samples;
    }

    /** Sum of the samples called {@code name} whose labels include every entry of {@code match}; 0 when none. */
    double sum(String name, Map<String, String> match) {
        double sum = 0;
        for (Sample sample : samples) {
            if (sample.name().equals(name) && sample.labels().entrySet().containsAll(match.entrySet())) {
                sum += sample.value();
            }
        }
        return sum;
    }

    double sum(String name) {
        return sum(name, Map.of());
    }

    /** Sums of {@code name} grouped by the value of {@code label}, in the order the groups first appear. */
    Map<String, Double> sumBy(String name, String label) {
        Map<String, Double> sums = new LinkedHashMap<>();
        for (Sample sample : samples) {
            String key = sample.labels().get(label);
            if (sample.name().equals(name) && key != null) {
                sums.merge(key, sample.value(), Double::sum);
            }
        }
        return sums;
    }

    private static Sample sample(String line) {
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        if (brace < 0 || (space >= 0 && space < brace)) {
            String[] parts = line.split("\\s+");
            return new Sample(parts[0], Map.of(), value(parts[1]));
        }
        Map<String, String> labels = new LinkedHashMap<>();
        int i = brace + 1;
        while (i < line.length() && line.charAt(i) != '}') {
            int eq = line.indexOf('=', i);
            String key = line.substring(i, eq).strip();
            StringBuilder value = new StringBuilder();
            int j = eq + 2; // past ="
            while (line.charAt(j) != '"') {
                char c = line.charAt(j);
                if (c == '\\') {
                    char escaped = line.charAt(++j);
                    value.append(escaped == 'n' ? '\n' : escaped);
                } else {
                    value.append(c);
                }
                j++;
            }
            labels.put(key, value.toString());
            i = j + 1;
            if (i < line.length() && line.charAt(i) == ',') {
                i++;
            }
        }
        String rest = line.substring(i + 1).strip();
        return new Sample(line.substring(0, brace), Map.copyOf(labels), value(rest.split("\\s+")[0]));
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }
}
