package io.floe.tableflow.changes;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A position in a topic: per partition, the next offset (everything below it is before the position).
 * A partition not listed is at offset 0. Written {@code 0:120,1:98}.
 */
public record Offsets(SortedMap<Integer, Long> next) {

    /** The topic's start: every partition at offset 0. */
    public static final Offsets START = new Offsets(new TreeMap<>());

    static final Pattern TEXT = Pattern.compile("\\d+:\\d+(,\\d+:\\d+)*");

    public Offsets {
        TreeMap<Integer, Long> copy = new TreeMap<>();
        next.forEach((partition, offset) -> {
            if (partition < 0 || offset < 0) {
                throw new IllegalArgumentException("offset " + offset + " of partition " + partition
                        + " is negative; partitions and offsets start at 0");
            }
            copy.put(partition, offset);
        });
        next = Collections.unmodifiableSortedMap(copy);
    }

    public static Offsets of(Map<Integer, Long> next) {
        return new Offsets(new TreeMap<>(next));
    }

    /** The next offset of {@code partition}: 0 when not listed. */
    public long get(int partition) {
        return next.getOrDefault(partition, 0L);
    }

    /** Whether this position is at or before {@code other} in every partition it lists. */
    public boolean atMost(Offsets other) {
        return next.entrySet().stream().allMatch(entry -> entry.getValue() <= other.get(entry.getKey()));
    }

    /** The same position listing every one of {@code partitions} (at 0 where not listed here). */
    public Offsets covering(Set<Integer> partitions) {
        TreeMap<Integer, Long> all = new TreeMap<>(next);
        partitions.forEach(partition -> all.putIfAbsent(partition, 0L));
        return new Offsets(all);
    }

    /** Parses {@code 0:120,1:98}; {@link IllegalArgumentException} when malformed or a partition repeats. */
    public static Offsets parse(String text) {
        if (!TEXT.matcher(text).matches()) {
            throw new IllegalArgumentException(
                    "cannot read offsets '" + text + "': write PARTITION:OFFSET pairs, as in 0:120,1:98");
        }
        TreeMap<Integer, Long> next = new TreeMap<>();
        for (String pair : text.split(",")) {
            int colon = pair.indexOf(':');
            int partition;
            long offset;
            try {
                partition = Integer.parseInt(pair.substring(0, colon));
                offset = Long.parseLong(pair.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("cannot read offsets '" + text + "': " + pair + " is out of range");
            }
            if (next.put(partition, offset) != null) {
                throw new IllegalArgumentException("offsets '" + text + "' name partition " + partition + " twice");
            }
        }
        return new Offsets(next);
    }

    @Override
    public String toString() {
        StringJoiner text = new StringJoiner(",");
        next.forEach((partition, offset) -> text.add(partition + ":" + offset));
        return text.toString();
    }
}
