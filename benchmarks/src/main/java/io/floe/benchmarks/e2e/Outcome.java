package io.floe.benchmarks.e2e;

import java.util.Optional;

/** Outcome of one measurement. The report shows a failure's reason in place of its figures. */
sealed interface Outcome<T> {

    record Measured<T>(T value) implements Outcome<T> {}

    /** The step ran and did not produce a figure: the system failed, timed out, or lacks an API. */
    record Failed<T>(String reason) implements Outcome<T> {}

    /** The step was not asked for (see {@code --consumer}) or could not run because an earlier step failed. */
    record Skipped<T>(String reason) implements Outcome<T> {}

    static <T> Outcome<T> measured(T value) {
        return new Measured<>(value);
    }

    static <T> Outcome<T> failed(String reason) {
        return new Failed<>(reason);
    }

    static <T> Outcome<T> skipped(String reason) {
        return new Skipped<>(reason);
    }

    default Optional<T> measured() {
        return this instanceof Measured<T> m ? Optional.of(m.value()) : Optional.empty();
    }

    /** Short text for a table cell when there is no value. */
    default String note() {
        if (this instanceof Failed<T> f) {
            return "failed: " + f.reason();
        }
        if (this instanceof Skipped<T> s) {
            return "skipped: " + s.reason();
        }
        return "";
    }
}
