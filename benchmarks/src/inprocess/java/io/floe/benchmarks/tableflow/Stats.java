package io.floe.benchmarks.tableflow;

import java.util.List;
import java.util.function.ToDoubleFunction;

/** Order statistics of a figure over measured items. */
final class Stats {

    private Stats() {}

    static <T> double median(List<T> items, ToDoubleFunction<T> figure) {
        return quantile(items, figure, 0.5);
    }

    /** The {@code q} quantile, nearest rank below: the median of an even count is the lower middle value. */
    static <T> double quantile(List<T> items, ToDoubleFunction<T> figure, double q) {
        double[] sorted = items.stream().mapToDouble(figure).sorted().toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];
    }

    static <T> double max(List<T> items, ToDoubleFunction<T> figure) {
        return items.stream().mapToDouble(figure).max().orElse(Double.NaN);
    }

    static <T> double min(List<T> items, ToDoubleFunction<T> figure) {
        return items.stream().mapToDouble(figure).min().orElse(Double.NaN);
    }
}
