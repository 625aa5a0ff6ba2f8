package io.floe.cli.groups;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code floe groups describe GROUP...}: per partition the group consumes or has committed, its
 * committed offset, the log end offset, the lag and the member consuming it, as
 * {@code kafka-consumer-groups --describe} prints them.
 */
@Command(
        name = "describe",
        description = "Shows each partition of a group: committed offset, log end offset, lag and "
                + "the member consuming it.")
final class DescribeGroupsCommand implements Callable<Integer> {

    /** Orders partitions by topic, then partition number. */
    static final Comparator<TopicPartition> BY_TOPIC_AND_PARTITION =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    @Spec
    private CommandSpec spec;

    @Mixin
    private GroupAdminOptions admin;

    @Parameters(paramLabel = "GROUP", arity = "1..*", description = "Groups to describe.")
    private List<String> groups;

    @Override
    public Integer call() {
        return admin.run(
                "describe",
                DeleteGroupsCommand.subject(groups),
                spec.commandLine().getErr(),
                this::describe);
    }

    private void describe(Admin client) throws ExecutionException, InterruptedException {
        Map<String, ConsumerGroupDescription> descriptions =
                client.describeConsumerGroups(groups).all().get();
        PrintWriter out = spec.commandLine().getOut();
        for (int i = 0; i < groups.size(); i++) {
            if (i > 0) {
                out.println();
            }
            describe(client, descriptions.get(groups.get(i)), out);
        }
    }

    private void describe(Admin client, ConsumerGroupDescription group, PrintWriter out)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed = Offsets.committed(client, group.groupId());
        Map<TopicPartition, MemberDescription> owners = new HashMap<>();
        for (MemberDescription member : group.members()) {
            member.assignment().topicPartitions().forEach(partition -> owners.put(partition, member));
        }
        Set<TopicPartition> partitions = new TreeSet<>(BY_TOPIC_AND_PARTITION);
        partitions.addAll(committed.keySet());
        partitions.addAll(owners.keySet());
        Map<TopicPartition, Long> ends = Offsets.logEnds(client, partitions);
        if (group.members().isEmpty()) {
            out.println("Consumer group '" + group.groupId() + "' has no active members.");
        }
        Table table = new Table(
                "GROUP",
                "TOPIC",
                "PARTITION",
                "CURRENT-OFFSET",
                "LOG-END-OFFSET",
                "LAG",
                "CONSUMER-ID",
                "HOST",
                "CLIENT-ID");
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            Long current = offset == null ? null : offset.offset();
            Long end = ends.get(partition);
            MemberDescription owner = owners.get(partition);
            table.add(
                    group.groupId(),
                    partition.topic(),
                    partition.partition(),
                    current,
                    end,
                    current == null || end == null ? null : Math.max(0, end - current),
                    owner == null ? null : owner.consumerId(),
                    owner == null ? null : owner.host(),
                    owner == null ? null : owner.clientId());
        }
        for (MemberDescription member : group.members()) {
            if (member.assignment().topicPartitions().isEmpty()) {
                table.add(
                        group.groupId(),
                        null,
                        null,
                        null,
                        null,
                        null,
                        member.consumerId(),
                        member.host(),
                        member.clientId());
            }
        }
        table.print(out);
    }
}
