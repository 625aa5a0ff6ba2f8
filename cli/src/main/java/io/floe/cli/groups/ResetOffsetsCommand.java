package io.floe.cli.groups;

import io.floe.cli.groups.GroupAdminOptions.CommandFailure;
import java.io.PrintWriter;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code floe groups reset-offsets GROUP (--to-earliest | --to-latest | --to-offset N | --to-datetime T |
 * --shift-by N) [--topic TOPIC[:P,...]]... [--dry-run | --execute]}, as {@code kafka-consumer-groups
 * --reset-offsets}: prints the new offsets, and commits them only with {@code --execute}, which needs
 * the group to have no members. New offsets are kept within each partition's log start and end.
 */
@Command(
        name = "reset-offsets",
        description = {
            "Moves a group's committed offsets. Prints the new offsets; commits them only with --execute,",
            "which needs the group to have no active members."
        })
final class ResetOffsetsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private GroupAdminOptions admin;

    @Parameters(paramLabel = "GROUP", description = "The group whose offsets to move.")
    private String group;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Target target;

    @Option(
            names = "--topic",
            paramLabel = "TOPIC[:P,...]",
            description = {
                "Partitions to reset: all of a topic, or the listed ones (orders:0,2). Repeatable.",
                "Default: every partition the group has committed offsets for."
            })
    private List<String> topics = new ArrayList<>();

    @ArgGroup(exclusive = true)
    private Mode mode = new Mode();

    /** Where the new offsets are. */
    static final class Target {
        @Option(names = "--to-earliest", required = true, description = "The log start of each partition.")
        boolean earliest;

        @Option(names = "--to-latest", required = true, description = "The log end of each partition.")
        boolean latest;

        @Option(names = "--to-offset", required = true, paramLabel = "N", description = "Offset N in each partition.")
        Long offset;

        @Option(
                names = "--to-datetime",
                required = true,
                paramLabel = "YYYY-MM-DDTHH:mm:SS[.sss][Z|+hh:mm]",
                description = "The first record at or after this time (local time when no zone is given).")
        String datetime;

        @Option(
                names = "--shift-by",
                required = true,
                paramLabel = "N",
                description = "The committed offset moved by N (negative: back).")
        Long shift;
    }

    /** Whether the new offsets are committed. */
    static final class Mode {
        @Option(names = "--dry-run", description = "Only print the new offsets (the default).")
        boolean dryRun;

        @Option(names = "--execute", description = "Commit the new offsets.")
        boolean execute;
    }

    /** One --topic value: a topic and its listed partitions, or all of them when none are listed. */
    private record Selection(String topic, List<Integer> partitions) {}

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Instant time;
        try {
            time = target.datetime == null ? null : parseTime(target.datetime);
        } catch (DateTimeException e) {
            err.println("floe groups reset-offsets: invalid value '" + target.datetime + "' for --to-datetime:"
                    + " expected YYYY-MM-DDTHH:mm:SS[.sss] with an optional zone (Z, +01:00)");
            return CommandLine.ExitCode.USAGE;
        }
        List<Selection> selections = new ArrayList<>();
        for (String topic : topics) {
            Selection selection = parseSelection(topic);
            if (selection == null) {
                err.println("floe groups reset-offsets: invalid value '" + topic + "' for --topic:"
                        + " expected TOPIC or TOPIC:PARTITION,PARTITION,...");
                return CommandLine.ExitCode.USAGE;
            }
            selections.add(selection);
        }
        boolean execute = mode != null && mode.execute;
        return admin.run(
                "reset-offsets", "group '" + group + "'", err, client -> reset(client, selections, time, execute));
    }

    private void reset(Admin client, List<Selection> selections, Instant time, boolean execute)
            throws ExecutionException, InterruptedException {
        if (execute) {
            requireInactive(client);
        }
        Map<TopicPartition, OffsetAndMetadata> committed = Offsets.committed(client, group);
        Set<TopicPartition> partitions = partitions(client, selections, committed);
        Map<TopicPartition, Long> planned = plan(client, partitions, committed, time);
        PrintWriter out = spec.commandLine().getOut();
        Table table = new Table("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET");
        planned.forEach((partition, offset) -> table.add(group, partition.topic(), partition.partition(), offset));
        table.print(out);
        if (!execute) {
            out.println("Dry run: nothing committed. Rerun with --execute to commit these offsets.");
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>(DescribeGroupsCommand.BY_TOPIC_AND_PARTITION);
        planned.forEach((partition, offset) -> offsets.put(partition, new OffsetAndMetadata(offset)));
        client.alterConsumerGroupOffsets(group, offsets).all().get();
        out.println("Committed new offsets of " + offsets.size() + " partition" + (offsets.size() == 1 ? "" : "s")
                + " for group " + group + ".");
    }

    /** Kafka's rule: offsets are only reset for a group without members, which cannot overwrite them. */
    private void requireInactive(Admin client) throws ExecutionException, InterruptedException {
        ConsumerGroupDescription description;
        try {
            description =
                    client.describeConsumerGroups(List.of(group)).all().get().get(group);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return; // a new group: its first offsets
            }
            throw e;
        }
        GroupState state = description.groupState();
        if (state != GroupState.EMPTY && state != GroupState.DEAD && state != GroupState.UNKNOWN) {
            throw new CommandFailure("offsets can only be reset while group '" + group + "' is inactive, but its"
                    + " state is " + state + "; stop its consumers first");
        }
    }

    private Set<TopicPartition> partitions(
            Admin client, List<Selection> selections, Map<TopicPartition, OffsetAndMetadata> committed)
            throws ExecutionException, InterruptedException {
        Set<TopicPartition> partitions = new TreeSet<>(DescribeGroupsCommand.BY_TOPIC_AND_PARTITION);
        if (selections.isEmpty()) {
            if (committed.isEmpty()) {
                throw new CommandFailure(
                        "group '" + group + "' has no committed offsets; name the partitions" + " with --topic");
            }
            partitions.addAll(committed.keySet());
            return partitions;
        }
        List<String> whole = new ArrayList<>();
        for (Selection selection : selections) {
            if (selection.partitions().isEmpty()) {
                whole.add(selection.topic());
            }
            selection
                    .partitions()
                    .forEach(partition -> partitions.add(new TopicPartition(selection.topic(), partition)));
        }
        if (!whole.isEmpty()) {
            for (TopicDescription description :
                    client.describeTopics(whole).allTopicNames().get().values()) {
                description
                        .partitions()
                        .forEach(p -> partitions.add(new TopicPartition(description.name(), p.partition())));
            }
        }
        return partitions;
    }

    /** The new offset of every partition, within its log start and end. */
    private Map<TopicPartition, Long> plan(
            Admin client,
            Set<TopicPartition> partitions,
            Map<TopicPartition, OffsetAndMetadata> committed,
            Instant time)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, Long> earliest = Offsets.look(client, partitions, OffsetSpec.earliest());
        Map<TopicPartition, Long> latest = Offsets.look(client, partitions, OffsetSpec.latest());
        Map<TopicPartition, Long> atTime = time == null
                ? Map.of()
                : Offsets.look(client, partitions, OffsetSpec.forTimestamp(time.toEpochMilli()));
        Map<TopicPartition, Long> planned = new TreeMap<>(DescribeGroupsCommand.BY_TOPIC_AND_PARTITION);
        for (TopicPartition partition : partitions) {
            Long start = earliest.get(partition);
            Long end = latest.get(partition);
            if (start == null || end == null) {
                throw new CommandFailure("partition " + partition + " does not exist");
            }
            long wanted;
            if (target.earliest) {
                wanted = start;
            } else if (target.latest) {
                wanted = end;
            } else if (target.offset != null) {
                wanted = target.offset;
            } else if (time != null) {
                long found = atTime.getOrDefault(partition, -1L);
                wanted = found < 0 ? end : found;
            } else {
                OffsetAndMetadata current = committed.get(partition);
                if (current == null) {
                    throw new CommandFailure(
                            "--shift-by needs a committed offset, and group '" + group + "' has none for " + partition);
                }
                wanted = current.offset() + target.shift;
            }
            planned.put(partition, Math.max(start, Math.min(end, wanted)));
        }
        return planned;
    }

    /** {@code TOPIC} or {@code TOPIC:P,P,...}; null when it is neither. */
    private static Selection parseSelection(String value) {
        int colon = value.indexOf(':');
        String topic = colon < 0 ? value : value.substring(0, colon);
        if (topic.isBlank()) {
            return null;
        }
        List<Integer> partitions = new ArrayList<>();
        if (colon >= 0) {
            for (String partition : value.substring(colon + 1).split(",")) {
                try {
                    int number = Integer.parseInt(partition.trim());
                    if (number < 0) {
                        return null;
                    }
                    partitions.add(number);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return new Selection(topic, partitions);
    }

    /** ISO-8601 with an optional zone or offset; without one the local time zone, as Kafka's tool does. */
    static Instant parseTime(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeException withoutZone) {
            return LocalDateTime.parse(text).atZone(ZoneId.systemDefault()).toInstant();
        }
    }
}
