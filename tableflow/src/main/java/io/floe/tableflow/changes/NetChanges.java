package io.floe.tableflow.changes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The min delta: collects a full delta and hands on one change per key, from the row before its first
 * change to the row after its last, at the position and commit of the last. A key inserted and then
 * deleted in the range does not appear; several updates collapse into one; a delete followed by an insert
 * is an update.
 */
final class NetChanges implements ChangeSink {

    private final Map<ByteBuffer, Change> first = new HashMap<>();
    /** The last change of each key, in the order of each key's last change. */
    private final LinkedHashMap<ByteBuffer, Change> last = new LinkedHashMap<>();

    @Override
    public void accept(Change change) {
        first.putIfAbsent(change.key(), change);
        last.remove(change.key());
        last.put(change.key(), change);
    }

    /** Hands {@code sink} the net change of each key, ordered by each key's last change; returns how many. */
    long finish(ChangeSink sink) throws IOException {
        long count = 0;
        for (Map.Entry<ByteBuffer, Change> entry : last.entrySet()) {
            Change end = entry.getValue();
            Change start = first.get(entry.getKey());
            if (start.before() == null && end.after() == null) {
                continue;
            }
            Op op = start.before() == null ? Op.INSERT : end.after() == null ? Op.DELETE : Op.UPDATE;
            sink.accept(new Change(
                    op,
                    end.key(),
                    start.before(),
                    end.after(),
                    end.partition(),
                    end.offset(),
                    end.timestampMs(),
                    end.commit()));
            count++;
        }
        return count;
    }
}
