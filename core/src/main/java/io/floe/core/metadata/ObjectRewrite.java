package io.floe.core.metadata;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A maintenance job's swap of batch rows. Each of {@code moves} says where a batch was when the plan
 * read it and where its bytes now lie in {@code output}, an uploaded object registered before its
 * upload; each of {@code removed} is a batch row, as the plan read it, that leaves the log.
 *
 * <p>Segment compaction moves batch bytes unchanged. Key compaction may move a batch rewritten with
 * fewer records (its new range is then shorter or, when a tombstone's delete horizon was stamped
 * into it, a few bytes longer, and its max timestamp may be lower) and removes batches left with no
 * record. A batch's first and last offsets never change, so the offsets of the records it keeps do
 * not either; a removed batch leaves a gap in the offsets, as in a compacted Kafka log.
 *
 * @param output the object the moved batches now lie in; null when the rewrite only removes batches
 * @param outputSizeBytes the output's size, 0 without an output
 */
public record ObjectRewrite(ObjectKey output, long outputSizeBytes, List<Move> moves, List<BatchCoordinate> removed) {

    public ObjectRewrite {
        moves = List.copyOf(moves);
        removed = List.copyOf(removed);
        if (output == null && !moves.isEmpty()) {
            throw new IllegalArgumentException("a rewrite that moves " + moves.size() + " batches needs an output");
        }
        if (output != null && moves.isEmpty()) {
            throw new IllegalArgumentException("a rewrite of " + output + " moves no batch");
        }
        if (output == null && removed.isEmpty()) {
            throw new IllegalArgumentException("a rewrite without an output removes no batch");
        }
        if (outputSizeBytes < 0 || (output == null && outputSizeBytes != 0)) {
            throw new IllegalArgumentException("output size " + outputSizeBytes + " for output " + output);
        }
    }

    /** Segment compaction's swap: every batch moves into {@code output}, none leaves the log. */
    public ObjectRewrite(ObjectKey output, long outputSizeBytes, List<Move> moves) {
        this(Objects.requireNonNull(output, "output"), outputSizeBytes, moves, List.of());
    }

    /** A swap that only removes batches (every record in them was superseded or expired). */
    public static ObjectRewrite removing(List<BatchCoordinate> removed) {
        return new ObjectRewrite(null, 0, List.of(), removed);
    }

    public Optional<ObjectKey> outputKey() {
        return Optional.ofNullable(output);
    }

    /**
     * One batch: its row as read ({@code from}), its range in the output and its max timestamp there
     * (lower than before when key compaction removed the record that carried it).
     */
    public record Move(BatchCoordinate from, ByteRange to, long maxTimestamp) {

        public Move {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            if (to.length() == 0) {
                throw new IllegalArgumentException("batch at " + from.baseOffset() + " of " + from.topicPartition()
                        + " moves to an empty range; remove it instead");
            }
        }

        /** A batch moved with its bytes unchanged. */
        public Move(BatchCoordinate from, ByteRange to) {
            this(from, to, from.maxTimestamp());
        }
    }
}
