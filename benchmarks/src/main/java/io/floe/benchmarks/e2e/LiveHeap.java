package io.floe.benchmarks.e2e;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The live heap of one system in one round: its used heap right after a forced full GC ({@link FullGc}), read at the
 * end of each phase, before the next starts, while the system still holds what the phases put in it. Unlike the
 * peak used heap it leaves out garbage not yet collected, so it does not grow with the max heap the JVM was given.
 *
 * @param afterPhase the reading after each phase; a phase that did not run has a skipped outcome or none
 */
record LiveHeap(Map<Phase, Outcome<Long>> afterPhase) {

    /** The measured phases, in the order they run. */
    enum Phase {
        PRODUCE("produce"),
        GROUP_CONSUME("group consume"),
        ASSIGN_CONSUME("assign consume"),
        STEADY("steady");

        private final String label;

        Phase(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }

        /** The name of the class histogram file taken with the reading. */
        String histogramFileName() {
            return "heap-histogram-after-" + label.replace(' ', '-') + ".txt";
        }
    }

    LiveHeap {
        afterPhase = afterPhase.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(afterPhase));
    }

    static LiveHeap notMeasured() {
        return new LiveHeap(Map.of());
    }

    Outcome<Long> after(Phase phase) {
        return afterPhase.getOrDefault(phase, Outcome.skipped("not measured"));
    }

    /** The largest reading over the phases; empty when none was measured. */
    OptionalLong maxBytes() {
        return afterPhase.values().stream()
                .flatMap(o -> o.measured().stream())
                .mapToLong(Long::longValue)
                .max();
    }
}
