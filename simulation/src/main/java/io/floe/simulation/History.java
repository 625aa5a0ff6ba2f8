package io.floe.simulation;

import io.floe.core.log.TopicPartition;
import io.floe.core.record.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the clients saw: every value sent, every acknowledgement (with the offset it gave), every
 * record a consumer or the checker read at an offset, and the violations found so far (the first
 * of each kind is kept with its step and virtual time).
 */
final class History {

    /** A record's place in the log. */
    record Position(TopicPartition topicPartition, long offset) {}

    private final World world;
    private final Set<String> sent = new LinkedHashSet<>();
    private final Map<String, Position> acked = new HashMap<>();
    private final Map<String, TopicPartition> ackedWithoutOffset = new HashMap<>();
    private final Map<Position, String> observed = new HashMap<>();
    private final Map<String, Position> observedAt = new HashMap<>();
    private final Set<String> consumed = new HashSet<>();
    private final Map<String, List<String>> violations = new java.util.TreeMap<>();

    History(World world) {
        this.world = world;
    }

    void sent(String value) {
        sent.add(value);
    }

    void acked(String value, Position position) {
        Position earlier = acked.putIfAbsent(value, position);
        if (earlier != null && !earlier.equals(position)) {
            violation("NoDuplicateAppend", value + " acknowledged at " + earlier + " and again at " + position);
        }
    }

    /** A value acknowledged as a duplicate whose offset the answer did not give. */
    void ackedWithoutOffset(String value, TopicPartition topicPartition) {
        ackedWithoutOffset.put(value, topicPartition);
    }

    /** The value a producer wrote into {@code record} (values are UTF-8 text, "p1-42"). */
    static String valueOf(StoredRecord record) {
        byte[] raw = new byte[record.valueSize()];
        record.value().get(raw);
        return new String(raw, StandardCharsets.UTF_8);
    }

    /** A value read at a position: it must be the value every earlier read saw there. */
    void observed(Position position, String value, String reader) {
        String earlier = observed.putIfAbsent(position, value);
        observedAt.putIfAbsent(value, position);
        if (earlier != null && !earlier.equals(value)) {
            violation(
                    "ConsistentRead",
                    reader + " read " + value + " at " + position + " where " + earlier + " was read before");
        }
        if (reader.equals("consumer")) {
            consumed.add(value);
        }
    }

    void violation(String invariant, String detail) {
        List<String> found = violations.computeIfAbsent(invariant, name -> new ArrayList<>());
        if (found.size() < 5) {
            found.add(String.format("step %d, t=%.3fs: %s", world.steps(), world.nanoTime() / 1e9, detail));
        } else if (found.size() == 5) {
            found.add("(more)");
        }
    }

    Set<String> sentValues() {
        return sent;
    }

    Map<String, Position> ackedValues() {
        return acked;
    }

    /** The values acknowledged without an offset, with the partition each was sent to. */
    Map<String, TopicPartition> ackedWithoutOffset() {
        return ackedWithoutOffset;
    }

    /** Where a value was first read, if it ever was. */
    Position observedAt(String value) {
        return observedAt.get(value);
    }

    /** The values consumers read through the fetch path. */
    Set<String> consumedValues() {
        return consumed;
    }

    Map<String, List<String>> violations() {
        return violations;
    }
}
