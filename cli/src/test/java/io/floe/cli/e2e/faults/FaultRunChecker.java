package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.faults.ReadChecks.Position;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the history of a fault run as Jepsen's Kafka checker does: what the producers were told, what
 * the consumer group polled, and what fresh consumers read from the beginning of every partition
 * after the faults healed. Values are unique, {@code p<producer>-<sequence>}, sent in sequence order.
 * It counts:
 * <ul>
 *   <li><b>acknowledged</b>: values whose send was acknowledged with a partition and offset;</li>
 *   <li><b>failed</b>: sends that failed for good (indeterminate: they may be in the log or not);</li>
 *   <li><b>lost</b>: acknowledged values not at their acknowledged partition and offset in every
 *       final read; a value acknowledged without an offset (a retry answered as a duplicate of a batch
 *       stored before its last five) must be in its partition in every final read, and is counted as
 *       <b>withoutOffset</b> too;</li>
 *   <li><b>duplicated</b>: values seen at more than one partition and offset, in any poll or read;</li>
 *   <li><b>reordered</b>: records of a final read at an offset above a later-sent value of the same
 *       producer in the same partition;</li>
 *   <li><b>changed</b>: partition offsets seen with different values by two polls or reads;</li>
 *   <li><b>neverPolled</b>: acknowledged values the group never polled;</li>
 *   <li><b>gaps</b>: offsets missing from a final read below its partition's last offset (Floe's
 *       offsets are dense from 0, and this topic has no retention or key compaction).</li>
 * </ul>
 * All but acknowledged and failed must be 0.
 */
final class FaultRunChecker {

    private static final int EXAMPLES = 5;
    private static final Pattern VALUE = Pattern.compile("p(\\d+)-(\\d+)");

    /** A send the agent acknowledged, with the partition and offset it answered. */
    record Ack(String value, int partition, long offset) {}

    /** One record as a reader saw it: a group member's poll, or a final read. */
    record Observation(String reader, int partition, long offset, String value) {}

    /**
     * A run's history: the acknowledged sends, the values of sends that failed for good, the group's
     * polls, and the final reads (each a whole log, read from the beginning).
     */
    record History(
            List<Ack> acks, List<String> failedSends, List<Observation> polls, List<List<Observation>> logReads) {}

    /** The counts, and a few examples of each violation. */
    record Result(
            int acknowledged,
            int withoutOffset,
            int failed,
            int lost,
            int duplicated,
            int reordered,
            int changed,
            int neverPolled,
            int gaps,
            Map<String, List<String>> examples) {

        boolean valid() {
            return lost == 0 && duplicated == 0 && reordered == 0 && changed == 0 && neverPolled == 0 && gaps == 0;
        }

        String counts() {
            return "acknowledged=" + acknowledged + " withoutOffset=" + withoutOffset + " failed=" + failed + " lost="
                    + lost + " duplicated=" + duplicated
                    + " reordered=" + reordered + " changed=" + changed + " neverPolled=" + neverPolled
                    + " gaps=" + gaps;
        }
    }

    private final Map<String, List<String>> examples = new LinkedHashMap<>();

    private FaultRunChecker() {}

    static Result check(History history) {
        return new FaultRunChecker().run(history);
    }

    private Result run(History history) {
        Map<String, Ack> acked = new LinkedHashMap<>();
        history.acks().forEach(ack -> acked.putIfAbsent(ack.value(), ack));
        List<Observation> all = new ArrayList<>(history.polls());
        history.logReads().forEach(all::addAll);
        int withoutOffset =
                (int) acked.values().stream().filter(ack -> ack.offset() < 0).count();
        return new Result(
                acked.size(),
                withoutOffset,
                new HashSet<>(history.failedSends()).size(),
                lost(acked.values(), history.logReads()),
                ReadChecks.duplicated(all, this::example),
                reordered(history.logReads()),
                ReadChecks.changed(all, this::example),
                neverPolled(acked.values(), history.polls()),
                gaps(history.logReads()),
                examples);
    }

    private int lost(Iterable<Ack> acks, List<List<Observation>> logReads) {
        List<Map<Position, String>> reads =
                logReads.stream().map(FaultRunChecker::byPosition).toList();
        int lost = 0;
        for (Ack ack : acks) {
            Position position = new Position(ack.partition(), ack.offset());
            for (int read = 0; read < reads.size(); read++) {
                if (ack.offset() < 0) {
                    if (!reads.get(read).entrySet().stream()
                            .anyMatch(at -> at.getKey().partition() == ack.partition()
                                    && at.getValue().equals(ack.value()))) {
                        lost++;
                        example(
                                "lost",
                                ack + " (acknowledged without an offset) but final read " + read
                                        + " does not have it in partition " + ack.partition());
                        break;
                    }
                    continue;
                }
                String found = reads.get(read).get(position);
                if (!ack.value().equals(found)) {
                    lost++;
                    example("lost", ack + " but final read " + read + " has " + found + " there");
                    break;
                }
            }
        }
        return lost;
    }

    private int reordered(List<List<Observation>> logReads) {
        Set<Position> reordered = new HashSet<>();
        for (List<Observation> read : logReads) {
            Map<Integer, TreeMap<Long, String>> partitions = new TreeMap<>();
            read.forEach(o -> partitions
                    .computeIfAbsent(o.partition(), p -> new TreeMap<>())
                    .put(o.offset(), o.value()));
            partitions.forEach((partition, records) -> {
                Map<Long, Long> lastSequence = new HashMap<>();
                records.forEach((offset, value) -> {
                    Matcher sent = VALUE.matcher(value);
                    if (!sent.matches()) {
                        return;
                    }
                    long producer = Long.parseLong(sent.group(1));
                    long sequence = Long.parseLong(sent.group(2));
                    Long previous = lastSequence.put(producer, sequence);
                    if (previous != null && sequence < previous && reordered.add(new Position(partition, offset))) {
                        example(
                                "reordered",
                                "partition " + partition + " offset " + offset + ": " + value + " after sequence "
                                        + previous + " of producer " + producer);
                    }
                });
            });
        }
        return reordered.size();
    }

    private int neverPolled(Iterable<Ack> acks, List<Observation> polls) {
        Set<String> polled = new HashSet<>();
        polls.forEach(poll -> polled.add(poll.value()));
        int never = 0;
        for (Ack ack : acks) {
            if (!polled.contains(ack.value())) {
                never++;
                example("neverPolled", ack.toString());
            }
        }
        return never;
    }

    private int gaps(List<List<Observation>> logReads) {
        Set<Position> missing = new HashSet<>();
        for (List<Observation> read : logReads) {
            Map<Integer, Set<Long>> offsets = new TreeMap<>();
            read.forEach(o ->
                    offsets.computeIfAbsent(o.partition(), p -> new HashSet<>()).add(o.offset()));
            offsets.forEach((partition, present) -> {
                long last = present.stream().mapToLong(Long::longValue).max().orElse(-1);
                for (long offset = 0; offset < last; offset++) {
                    if (!present.contains(offset) && missing.add(new Position(partition, offset))) {
                        example("gaps", "partition " + partition + " offset " + offset);
                    }
                }
            });
        }
        return missing.size();
    }

    private static Map<Position, String> byPosition(List<Observation> read) {
        Map<Position, String> positions = new HashMap<>();
        read.forEach(o -> positions.put(new Position(o.partition(), o.offset()), o.value()));
        return positions;
    }

    private void example(String kind, String violation) {
        List<String> shown = examples.computeIfAbsent(kind, k -> new ArrayList<>());
        if (shown.size() < EXAMPLES) {
            shown.add(violation);
        }
    }
}
