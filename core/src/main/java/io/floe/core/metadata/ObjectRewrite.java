package io.floe.core.metadata;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import java.util.List;
import java.util.Objects;

/**
 * A compaction's swap: each of {@code moves} says where a batch was when the plan read it and where
 * its bytes now lie in {@code output}, an uploaded object registered before its upload.
 */
public record ObjectRewrite(ObjectKey output, long outputSizeBytes, List<Move> moves) {

    public ObjectRewrite {
        Objects.requireNonNull(output, "output");
        moves = List.copyOf(moves);
        if (moves.isEmpty()) {
            throw new IllegalArgumentException("a rewrite of " + output + " moves no batch");
        }
    }

    /** One batch: its row as read ({@code from}) and its range in the output. */
    public record Move(BatchCoordinate from, ByteRange to) {

        public Move {
            if (from.range().length() != to.length()) {
                throw new IllegalArgumentException("batch at " + from.baseOffset() + " of " + from.topicPartition()
                        + " is " + from.range().length() + " bytes but its new range holds " + to.length());
            }
        }
    }
}
