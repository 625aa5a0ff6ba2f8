package io.floe.tableflow.changes.stream;

import io.floe.tableflow.changes.Offsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a change topic has published its table: per partition of the source topic, the next offset
 * whose change is not published yet. Kept as the committed offsets of the stream's consumer group on the
 * source topic, written in the same Kafka transaction as the changes, each with the metadata {@code
 * floe-changes topic-id=<id> to=<change topic> snapshot=<id>}: the source topic's id and the change
 * topic, so a topic deleted and created again under its name, or a table given another change topic,
 * starts afresh; and the table commit published last, for people reading {@code floe groups describe}.
 *
 * @param next the position; offset 0 in the partitions it does not list
 * @param fresh whether nothing was published yet (no offsets, or offsets of an earlier topic of this name or
 *     for another change topic)
 */
record Progress(Offsets next, boolean fresh) {

    private static final Pattern METADATA =
            Pattern.compile("floe-changes topic-id=([0-9a-f-]{36}) to=(\\S+) snapshot=(-?\\d+)");

    static Progress start() {
        return new Progress(Offsets.START, true);
    }

    /**
     * The progress that the group's committed offsets {@code committed} record for {@code topic}; fresh when
     * there are none, or when they were written for an earlier topic of its name or another change topic.
     * Offsets an operator set (their metadata is not the stream's) are taken as they are: that is how a
     * stream is moved.
     */
    static Progress of(
            Map<TopicPartition, OffsetAndMetadata> committed, String topic, UUID topicId, String changeTopic) {
        Map<Integer, Long> next = new HashMap<>();
        boolean elsewhere = false;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : committed.entrySet()) {
            if (!entry.getKey().topic().equals(topic) || entry.getValue() == null) {
                continue;
            }
            Matcher written = METADATA.matcher(
                    Optional.ofNullable(entry.getValue().metadata()).orElse(""));
            elsewhere |= written.matches()
                    && !(UUID.fromString(written.group(1)).equals(topicId)
                            && written.group(2).equals(changeTopic));
            next.put(entry.getKey().partition(), entry.getValue().offset());
        }
        if (next.isEmpty() || elsewhere) {
            return start();
        }
        return new Progress(Offsets.of(next), false);
    }

    /**
     * The group offsets that record {@code to} as published to {@code changeTopic}, up to the table commit
     * {@code snapshotId}.
     */
    static Map<TopicPartition, OffsetAndMetadata> offsets(
            String topic, UUID topicId, String changeTopic, Offsets to, long snapshotId) {
        String metadata = "floe-changes topic-id=" + topicId + " to=" + changeTopic + " snapshot=" + snapshotId;
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        to.next()
                .forEach((partition, offset) ->
                        offsets.put(new TopicPartition(topic, partition), new OffsetAndMetadata(offset, metadata)));
        return offsets;
    }
}
