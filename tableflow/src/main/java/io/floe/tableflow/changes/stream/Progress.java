package io.floe.tableflow.changes.stream;

import io.floe.tableflow.changes.Offsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a change topic has published its table: per partition of the source topic, the next offset
 * whose change is not published yet; or, while an initial snapshot goes out in steps ({@link #reading}),
 * how far the snapshot got (the rows of the source offsets below it are published). Kept as the
 * committed offsets of the stream's consumer group on the source topic, written in the same Kafka
 * transaction as the changes, each with the metadata {@code floe-changes topic-id=<id> to=<change
 * topic> snapshot=<id> txn=<n>[ reading]}: the source topic's id and the change topic, so a topic
 * deleted and created again under its name, or a table given another change topic, starts afresh; the
 * table commit published last (or the snapshot being read); and the count of the stream's transactions.
 * The last record each transaction writes to a partition of the change topic carries the same text with
 * the whole position ({@link #header}), so a stream whose group is gone reads its progress back from the
 * topic ({@link TopicTail}).
 *
 * @param next the position; offset 0 in the partitions it does not list
 * @param origin who wrote it
 * @param reading the snapshot an initial snapshot is publishing, when one is under way
 * @param snapshotId the table commit published last, or the snapshot being read (-1: none)
 * @param transaction how many transactions the stream has committed (the header of the newest wins)
 */
record Progress(Offsets next, Origin origin, OptionalLong reading, long snapshotId, long transaction) {

    /** Who wrote a progress. */
    enum Origin {
        /** Nobody: no offsets, or offsets of an earlier topic of this name or for another change topic. */
        NONE,
        /** The stream, in a transaction with its changes (read from the group or the change topic). */
        STREAM,
        /** An operator (offsets without the stream's metadata), moving the stream. */
        OPERATOR
    }

    /** The record header that carries a transaction's progress, on the last record of each partition. */
    static final String HEADER = "floe.changes.progress";

    private static final String PREFIX = "floe-changes ";
    private static final Pattern TEXT = Pattern.compile("floe-changes topic-id=([0-9a-f-]{36}) to=(\\S+)"
            + " snapshot=(-?\\d+)(?: txn=(\\d+))?( reading)?(?: next=(\\d+:\\d+(?:,\\d+:\\d+)*|-))?");

    static Progress start() {
        return new Progress(Offsets.START, Origin.NONE, OptionalLong.empty(), -1, 0);
    }

    boolean fresh() {
        return origin == Origin.NONE;
    }

    /** Whether an initial snapshot is under way. */
    boolean snapshotting() {
        return reading.isPresent();
    }

    /** The progress after a transaction that published up to {@code to}, ending with table commit {@code snapshot}. */
    Progress published(Offsets to, long snapshot) {
        return new Progress(to, Origin.STREAM, OptionalLong.empty(), snapshot, transaction + 1);
    }

    /** The progress after a step of the initial snapshot {@code snapshot} that read up to {@code cursor}. */
    Progress readingTo(long snapshot, Offsets cursor) {
        return new Progress(cursor, Origin.STREAM, OptionalLong.of(snapshot), snapshot, transaction + 1);
    }

    /** The same progress, its transaction count at least {@code transactions}. */
    Progress countingFrom(long transactions) {
        return new Progress(next, origin, reading, snapshotId, Math.max(transaction, transactions));
    }

    /** The same progress, committed again (a transaction that publishes nothing, keeping it fresh). */
    Progress renewed() {
        return new Progress(next, Origin.STREAM, reading, snapshotId, transaction + 1);
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
        int written = 0;
        boolean elsewhere = false;
        boolean reading = false;
        long snapshot = -1;
        long transaction = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : committed.entrySet()) {
            if (!entry.getKey().topic().equals(topic) || entry.getValue() == null) {
                continue;
            }
            next.put(entry.getKey().partition(), entry.getValue().offset());
            Matcher text = TEXT.matcher(
                    Optional.ofNullable(entry.getValue().metadata()).orElse(""));
            if (text.matches()) {
                written++;
                elsewhere |= !ours(text, topicId, changeTopic);
                reading |= text.group(5) != null;
                snapshot = Long.parseLong(text.group(3));
                transaction = Math.max(transaction, text.group(4) == null ? 0 : Long.parseLong(text.group(4)));
            }
        }
        if (next.isEmpty() || elsewhere) {
            return start();
        }
        if (written < next.size()) { // an operator set some or all of them
            return new Progress(Offsets.of(next), Origin.OPERATOR, OptionalLong.empty(), -1, transaction);
        }
        return new Progress(
                Offsets.of(next),
                Origin.STREAM,
                reading ? OptionalLong.of(snapshot) : OptionalLong.empty(),
                snapshot,
                transaction);
    }

    /** What a header {@link #header} wrote says, read for {@code topicId} and {@code changeTopic}. */
    sealed interface Read {
        /** The stream's progress. */
        record Ours(Progress progress) implements Read {}

        /** The stream of an earlier topic of this name, or of a table that published to this topic before. */
        record Elsewhere() implements Read {}

        /** No progress the stream wrote (another writer's record, or one of an older version). */
        record Unreadable() implements Read {}
    }

    /** Reads a header's {@code text}. */
    static Read ofHeader(String text, UUID topicId, String changeTopic) {
        Matcher written = TEXT.matcher(text);
        if (!written.matches() || written.group(6) == null) {
            return new Read.Unreadable();
        }
        if (!ours(written, topicId, changeTopic)) {
            return new Read.Elsewhere();
        }
        long snapshot = Long.parseLong(written.group(3));
        Offsets next = written.group(6).equals("-") ? Offsets.START : Offsets.parse(written.group(6));
        return new Read.Ours(new Progress(
                next,
                Origin.STREAM,
                written.group(5) != null ? OptionalLong.of(snapshot) : OptionalLong.empty(),
                snapshot,
                written.group(4) == null ? 0 : Long.parseLong(written.group(4))));
    }

    /** The group offsets that record this progress of {@code topic} as published to {@code changeTopic}. */
    Map<TopicPartition, OffsetAndMetadata> offsets(String topic, UUID topicId, String changeTopic) {
        String metadata = metadata(topicId, changeTopic);
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        next.next()
                .forEach((partition, offset) ->
                        offsets.put(new TopicPartition(topic, partition), new OffsetAndMetadata(offset, metadata)));
        return offsets;
    }

    /** The text of the {@link #HEADER} that carries this progress on the change topic's records. */
    String header(UUID topicId, String changeTopic) {
        String position = next.next().isEmpty() ? "-" : next.toString();
        return metadata(topicId, changeTopic) + " next=" + position;
    }

    private String metadata(UUID topicId, String changeTopic) {
        return PREFIX + "topic-id=" + topicId + " to=" + changeTopic + " snapshot=" + snapshotId + " txn=" + transaction
                + (reading.isPresent() ? " reading" : "");
    }

    private static boolean ours(Matcher written, UUID topicId, String changeTopic) {
        return UUID.fromString(written.group(1)).equals(topicId)
                && written.group(2).equals(changeTopic);
    }
}
