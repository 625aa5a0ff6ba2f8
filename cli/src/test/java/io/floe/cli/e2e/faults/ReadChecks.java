package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.faults.FaultRunChecker.Observation;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/** The checks both fault run checkers make of what was read, each reporting examples by kind. */
final class ReadChecks {

    /** A record's place in the log, in log order. */
    record Position(int partition, long offset) implements Comparable<Position> {
        @Override
        public int compareTo(Position other) {
            return partition != other.partition
                    ? Integer.compare(partition, other.partition)
                    : Long.compare(offset, other.offset);
        }
    }

    private ReadChecks() {}

    /** Values observed at more than one position (kind {@code duplicated}). */
    static int duplicated(List<Observation> observations, BiConsumer<String, String> example) {
        Map<String, Set<Position>> positions = new TreeMap<>();
        observations.forEach(o -> positions
                .computeIfAbsent(o.value(), v -> new LinkedHashSet<>())
                .add(new Position(o.partition(), o.offset())));
        int duplicated = 0;
        for (Map.Entry<String, Set<Position>> value : positions.entrySet()) {
            if (value.getValue().size() > 1) {
                duplicated++;
                example.accept("duplicated", value.getKey() + " at " + value.getValue());
            }
        }
        return duplicated;
    }

    /** Positions observed with more than one value (kind {@code changed}). */
    static int changed(List<Observation> observations, BiConsumer<String, String> example) {
        Map<Position, Set<String>> values = new TreeMap<>();
        observations.forEach(
                o -> values.computeIfAbsent(new Position(o.partition(), o.offset()), p -> new LinkedHashSet<>())
                        .add(o.value()));
        int changed = 0;
        for (Map.Entry<Position, Set<String>> position : values.entrySet()) {
            if (position.getValue().size() > 1) {
                changed++;
                example.accept("changed", position.getKey() + " seen as " + position.getValue());
            }
        }
        return changed;
    }
}
