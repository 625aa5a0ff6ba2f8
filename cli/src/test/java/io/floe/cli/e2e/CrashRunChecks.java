package io.floe.cli.e2e;

import io.floe.cli.e2e.GroupReader.CommitAttempt;
import io.floe.cli.e2e.GroupReader.Delivery;
import io.floe.cli.e2e.PacedProducer.Ack;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.GroupState;
import org.assertj.core.api.SoftAssertions;

/**
 * What {@link ThreeAgentsCrashIT} must show after its run, each property a soft assertion so that a
 * failing run reports all it got wrong. Violations are listed (the first few) rather than whole logs.
 *
 * <p>The producers: every send was acknowledged, some before and some after the kill. The log, read
 * afterwards from the beginning by a consumer of its own: each acknowledged value is there once, at
 * the partition and offset its acknowledgement gave; offsets are dense; each producer's records keep
 * their order within a partition. The group: it consumed every acknowledged record, what each member
 * read of a partition in one session has growing offsets and the log's values, it consumed and
 * committed after the kill, its committed offsets reach the end of every partition, and it ended
 * Stable with both members on a surviving coordinator. What the group read twice is bounded: a member's
 * session starts on a partition at an offset somebody tried to commit (or 0), and not below any
 * commit acknowledged before the session started. That is the at-least-once window of a rebalance,
 * and nothing more: a lost commit would start a session lower.
 */
final class CrashRunChecks {

    private static final int SHOWN = 20;

    /** A record's place in the log. */
    private record Position(int partition, long offset) {}

    /** One member's session: from one assignment to the next. */
    private record Session(int reader, int session) {}

    /** One member's deliveries of one partition in one session. */
    private record Run(int reader, int session, int partition) {}

    private final int sent;
    private final List<Ack> acks;
    private final List<String> sendFailures;
    private final List<ConsumerRecord<byte[], byte[]>> log;
    private final List<Delivery> deliveries = new ArrayList<>();
    private final List<CommitAttempt> commits = new ArrayList<>();
    private final Map<Session, Long> sessionStarts = new HashMap<>();
    private final List<String> readerErrors = new ArrayList<>();
    private final long killedAt;
    private final Map<Position, String> logByPosition = new HashMap<>();

    CrashRunChecks(
            int sent,
            List<Ack> acks,
            List<String> sendFailures,
            List<ConsumerRecord<byte[], byte[]>> log,
            List<GroupReader> readers,
            long killedAt) {
        this.sent = sent;
        this.acks = acks;
        this.sendFailures = sendFailures;
        this.log = log;
        this.killedAt = killedAt;
        for (GroupReader reader : readers) {
            deliveries.addAll(reader.deliveries());
            commits.addAll(reader.commits());
            reader.sessions().forEach(s -> sessionStarts.put(new Session(s.reader(), s.session()), s.atNanos()));
            readerErrors.addAll(reader.unexpected());
        }
        log.forEach(r -> logByPosition.put(new Position(r.partition(), r.offset()), Records.text(r.value())));
    }

    String summary() {
        long distinct = deliveries.stream()
                .map(d -> new Position(d.partition(), d.offset()))
                .distinct()
                .count();
        return String.format(
                "sent=%d acked=%d ackedAfterKill=%d log=%d delivered=%d deliveredAfterKill=%d"
                        + " redelivered=%d sessions=%d commits=%d acknowledgedCommits=%d readerErrors=%d",
                sent,
                acks.size(),
                acks.stream().filter(a -> a.atNanos() > killedAt).count(),
                log.size(),
                deliveries.size(),
                deliveries.stream().filter(d -> d.atNanos() > killedAt).count(),
                deliveries.size() - distinct,
                sessionStarts.size(),
                commits.size(),
                commits.stream().filter(CommitAttempt::acknowledged).count(),
                readerErrors.size());
    }

    void assertAll(
            Map<Integer, Long> committed,
            Map<Integer, Long> endOffsets,
            ConsumerGroupDescription group,
            int killedNode) {
        SoftAssertions softly = new SoftAssertions();
        checkProducers(softly);
        checkLog(softly);
        checkGroupReads(softly);
        checkRedeliveries(softly);
        checkGroupWentOn(softly, committed, endOffsets, group, killedNode);
        softly.assertAll();
    }

    private void checkProducers(SoftAssertions softly) {
        softly.assertThat(sendFailures)
                .as("sends that failed for good (the producers must carry on through the" + " survivors)")
                .isEmpty();
        softly.assertThat(acks).as("acknowledged records").hasSize(sent);
        softly.assertThat(acks.stream().filter(a -> a.atNanos() <= killedAt).count())
                .as("acknowledged before the kill")
                .isPositive();
        softly.assertThat(acks.stream().filter(a -> a.atNanos() > killedAt).count())
                .as("acknowledged after the kill")
                .isPositive();
    }

    private void checkLog(SoftAssertions softly) {
        Map<String, Long> counts =
                log.stream().collect(Collectors.groupingBy(r -> Records.text(r.value()), Collectors.counting()));
        expectNone(
                softly,
                "values stored more than once",
                counts.entrySet().stream()
                        .filter(e -> e.getValue() > 1)
                        .map(e -> e.getKey() + " x" + e.getValue())
                        .toList());
        expectNone(
                softly,
                "acknowledged records missing from the log",
                acks.stream()
                        .filter(a -> !counts.containsKey(a.value()))
                        .map(Ack::toString)
                        .toList());
        expectNone(
                softly,
                "acknowledged records not at their acknowledged partition and offset",
                acks.stream()
                        .filter(a -> counts.containsKey(a.value()))
                        .filter(a -> !a.value().equals(logByPosition.get(new Position(a.partition(), a.offset()))))
                        .map(a -> a + " but the log has " + logByPosition.get(new Position(a.partition(), a.offset())))
                        .toList());
        Set<String> acknowledged = acks.stream().map(Ack::value).collect(Collectors.toSet());
        expectNone(
                softly,
                "values in the log never acknowledged",
                counts.keySet().stream()
                        .filter(value -> !acknowledged.contains(value))
                        .sorted()
                        .toList());
        List<String> gaps = new ArrayList<>();
        List<String> reordered = new ArrayList<>();
        byPartition(log, ConsumerRecord::partition).forEach((partition, records) -> {
            Map<Integer, Integer> lastSequence = new HashMap<>();
            for (int i = 0; i < records.size(); i++) {
                ConsumerRecord<byte[], byte[]> record = records.get(i);
                if (record.offset() != i) {
                    gaps.add("partition " + partition + " has offset " + record.offset() + " at index " + i);
                }
                String value = Records.text(record.value());
                Integer previous = lastSequence.put(PacedProducer.producerOf(value), PacedProducer.sequenceOf(value));
                if (previous != null && previous >= PacedProducer.sequenceOf(value)) {
                    reordered.add("partition " + partition + " offset " + record.offset() + ": " + value
                            + " after sequence " + previous);
                }
            }
        });
        expectNone(softly, "offsets not dense from 0", gaps);
        expectNone(softly, "a producer's records out of order within a partition", reordered);
    }

    private void checkGroupReads(SoftAssertions softly) {
        Set<String> consumed = deliveries.stream().map(Delivery::value).collect(Collectors.toSet());
        expectNone(
                softly,
                "acknowledged records the group never consumed",
                acks.stream()
                        .filter(a -> !consumed.contains(a.value()))
                        .map(Ack::toString)
                        .toList());
        expectNone(
                softly,
                "deliveries that differ from the log at their offset",
                deliveries.stream()
                        .filter(d -> !d.value().equals(logByPosition.get(new Position(d.partition(), d.offset()))))
                        .map(Delivery::toString)
                        .toList());
        List<String> backwards = new ArrayList<>();
        runs().forEach((run, offsets) -> {
            for (int i = 1; i < offsets.size(); i++) {
                if (offsets.get(i) <= offsets.get(i - 1)) {
                    backwards.add(run + ": offset " + offsets.get(i) + " after " + offsets.get(i - 1));
                }
            }
        });
        expectNone(softly, "offsets not growing within one member's session of a partition", backwards);
        expectNone(softly, "unexpected consumer errors", readerErrors);
    }

    /** Redelivery is allowed only where a session started, at a committed offset no lower than acknowledged. */
    private void checkRedeliveries(SoftAssertions softly) {
        Map<Integer, Set<Long>> attempted = new HashMap<>();
        commits.forEach(c ->
                attempted.computeIfAbsent(c.partition(), p -> new HashSet<>()).add(c.offset()));
        List<String> uncommittedStarts = new ArrayList<>();
        List<String> startsBelowCommit = new ArrayList<>();
        runs().forEach((run, offsets) -> {
            long first = offsets.get(0);
            if (first != 0 && !attempted.getOrDefault(run.partition(), Set.of()).contains(first)) {
                uncommittedStarts.add(run + " started at " + first);
            }
            long started = sessionStarts.getOrDefault(new Session(run.reader(), run.session()), Long.MIN_VALUE);
            long acknowledgedBefore = commits.stream()
                    .filter(c -> c.partition() == run.partition() && c.acknowledged() && c.atNanos() < started)
                    .mapToLong(CommitAttempt::offset)
                    .max()
                    .orElse(0);
            if (first < acknowledgedBefore) {
                startsBelowCommit.add(
                        run + " started at " + first + " below the acknowledged commit " + acknowledgedBefore);
            }
        });
        expectNone(softly, "sessions starting at an offset nobody committed", uncommittedStarts);
        expectNone(
                softly, "sessions starting below a commit acknowledged before them (a lost commit)", startsBelowCommit);
    }

    private void checkGroupWentOn(
            SoftAssertions softly,
            Map<Integer, Long> committed,
            Map<Integer, Long> endOffsets,
            ConsumerGroupDescription group,
            int killedNode) {
        softly.assertThat(
                        deliveries.stream().filter(d -> d.atNanos() > killedAt).count())
                .as("records consumed after the kill")
                .isPositive();
        softly.assertThat(commits.stream()
                        .filter(c -> c.acknowledged() && c.atNanos() > killedAt)
                        .count())
                .as("commits acknowledged after the kill")
                .isPositive();
        softly.assertThat(committed)
                .as("the group's committed offsets against the log end offsets")
                .isEqualTo(endOffsets);
        softly.assertThat(group.groupState()).as("group state at the end").isEqualTo(GroupState.STABLE);
        softly.assertThat(group.members()).as("group members at the end").hasSize(2);
        softly.assertThat(group.coordinator().id()).as("coordinator at the end").isNotEqualTo(killedNode);
    }

    /** Each member's deliveries by partition and session, offsets in delivery order. */
    private Map<Run, List<Long>> runs() {
        Map<Run, List<Long>> runs = new LinkedHashMap<>();
        deliveries.forEach(
                d -> runs.computeIfAbsent(new Run(d.reader(), d.session(), d.partition()), r -> new ArrayList<>())
                        .add(d.offset()));
        return runs;
    }

    private static <T> Map<Integer, List<T>> byPartition(List<T> items, Function<T, Integer> partition) {
        Map<Integer, List<T>> grouped = new TreeMap<>();
        items.forEach(item -> grouped.computeIfAbsent(partition.apply(item), p -> new ArrayList<>())
                .add(item));
        return grouped;
    }

    private static void expectNone(SoftAssertions softly, String what, List<String> violations) {
        softly.assertThat(violations.size())
                .as(
                        "%s: %d, first ones: %s",
                        what, violations.size(), violations.subList(0, Math.min(SHOWN, violations.size())))
                .isZero();
    }
}
