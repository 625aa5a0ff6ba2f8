package io.floe.cli.groups;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** The offset look-ups the group commands share. */
final class Offsets {

    private Offsets() {}

    /** The group's committed offsets, by partition (partitions without an offset left out). */
    static Map<TopicPartition, OffsetAndMetadata> committed(Admin client, String group)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        client.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get()
                .forEach((partition, offset) -> {
                    if (offset != null) {
                        committed.put(partition, offset);
                    }
                });
        return committed;
    }

    /**
     * The log end offsets of the partitions whose topics exist. Partitions of deleted topics are left
     * out rather than asked for: Admin would retry them until its timeout.
     */
    static Map<TopicPartition, Long> logEnds(Admin client, Collection<TopicPartition> partitions)
            throws ExecutionException, InterruptedException {
        return look(client, partitions, OffsetSpec.latest());
    }

    /** The offset {@code spec} finds in each partition whose topic exists; -1 where it finds none. */
    static Map<TopicPartition, Long> look(Admin client, Collection<TopicPartition> partitions, OffsetSpec spec)
            throws ExecutionException, InterruptedException {
        Set<String> topics = client.listTopics().names().get();
        Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
        partitions.stream()
                .filter(partition -> topics.contains(partition.topic()))
                .forEach(partition -> wanted.put(partition, spec));
        Map<TopicPartition, Long> found = new HashMap<>();
        if (wanted.isEmpty()) {
            return found;
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answers =
                client.listOffsets(wanted).all().get();
        answers.forEach((partition, info) -> found.put(partition, info.offset()));
        return found;
    }
}
