package io.floe.benchmarks.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The summary line a load tool prints last, {@code PREFIX key=value key=value ...}, as a map. The tools are this
 * package's own mains, so the format is ours: one line, no spaces inside values.
 */
record ToolSummary(Map<String, String> values) {

    /** The last line of {@code lines} that starts with {@code prefix} and a space; empty when there is none. */
    static Optional<ToolSummary> parse(List<String> lines, String prefix) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            String line = lines.get(i).strip();
            if (!line.startsWith(prefix + " ")) {
                continue;
            }
            Map<String, String> values = new LinkedHashMap<>();
            for (String token : line.substring(prefix.length()).strip().split("\\s+")) {
                int eq = token.indexOf('=');
                if (eq > 0) {
                    values.put(token.substring(0, eq), token.substring(eq + 1));
                }
            }
            return Optional.of(new ToolSummary(Map.copyOf(values)));
        }
        return Optional.empty();
    }

    long longValue(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalStateException("summary has no " + key + ": " + values);
        }
        return Long.parseLong(value);
    }

    long longValue(String key, long fallback) {
        String value = values.get(key);
        return value == null ? fallback : Long.parseLong(value);
    }
}
