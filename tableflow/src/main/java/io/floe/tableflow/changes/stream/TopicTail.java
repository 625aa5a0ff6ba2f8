package io.floe.tableflow.changes.stream;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * The progress a change topic's own records say its stream had: what a stream whose group offsets are
 * gone (deleted, or expired while the stream was off) resumes from, as Kafka Connect's exactly-once
 * sources keep their position beside their output. Each transaction's last record in each partition
 * carries the transaction's whole position ({@link Progress#header}), and a transaction's commit marker
 * directly follows its last record there; so when every partition that has ever been written ends with
 * a committed record followed by its marker (the record at end - 2 carries a progress), the newest of
 * those progresses ({@link Progress#transaction}) is the last transaction that wrote anything. A later
 * transaction that wrote nothing published no change, and replaying its range publishes none again.
 * When a partition's end is not such a record (an aborted attempt at the end, records of another
 * writer, of an older version, or a tail that retention or compaction removed), the position cannot be
 * proven and the stream halts rather than guess.
 */
final class TopicTail {

    private TopicTail() {}

    /** What the tail says. */
    sealed interface Found {
        /** Nothing was ever written: a stream starting afresh publishes nothing twice. */
        record Empty() implements Found {}

        /** The stream's progress, as its last transaction that wrote a record left it. */
        record Resumed(Progress progress) implements Found {}

        /** Only the records of another stream (an earlier topic of this name, another table): start afresh. */
        record Elsewhere() implements Found {}

        /** Written, but no progress can be proven from it; {@code why} says what was found. */
        record Unknown(String why) implements Found {}
    }

    /**
     * The highest transaction count among the stream's progresses at the partitions' ends (0: none): a
     * stream moved by an operator counts on from there, so its later transactions outrank those before.
     */
    static long newestTransaction(List<StreamLink.PartitionEnd> ends, UUID topicId, String changeTopic) {
        long newest = 0;
        for (StreamLink.PartitionEnd end : ends) {
            if (end.lastProgress().isPresent()
                    && Progress.ofHeader(end.lastProgress().get(), topicId, changeTopic)
                            instanceof Progress.Read.Ours ours) {
                newest = Math.max(newest, ours.progress().transaction());
            }
        }
        return newest;
    }

    static Found of(List<StreamLink.PartitionEnd> ends, UUID topicId, String changeTopic) {
        List<Progress> ours = new ArrayList<>();
        boolean elsewhere = false;
        for (StreamLink.PartitionEnd end : ends) {
            if (end.endOffset() == 0) {
                continue;
            }
            if (end.lastProgress().isEmpty()) {
                return new Found.Unknown("partition " + end.partition() + " ends at offset " + end.endOffset()
                        + " and the committed record before its last marker (offset " + (end.endOffset() - 2)
                        + ") is missing or carries no progress (an aborted attempt at its end, another writer's or"
                        + " an older version's records, or removed by retention or compaction)");
            }
            Progress.Read read = Progress.ofHeader(end.lastProgress().get(), topicId, changeTopic);
            if (read instanceof Progress.Read.Ours found) {
                ours.add(found.progress());
            } else if (read instanceof Progress.Read.Elsewhere) {
                elsewhere = true;
            } else {
                return new Found.Unknown("the last record of partition " + end.partition()
                        + " carries a progress this version cannot read: "
                        + end.lastProgress().get());
            }
        }
        if (!ours.isEmpty()) {
            return new Found.Resumed(ours.stream()
                    .max(Comparator.comparingLong(Progress::transaction))
                    .orElseThrow());
        }
        return elsewhere ? new Found.Elsewhere() : new Found.Empty();
    }
}
