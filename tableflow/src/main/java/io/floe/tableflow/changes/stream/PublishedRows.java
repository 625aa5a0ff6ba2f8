package io.floe.tableflow.changes.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.util.ByteBuffers;

/**
 * The rows a change topic holds that a snapshot of its table does not: what an initial snapshot deletes
 * once its rows are out, so that a consumer replaying the topic from its start ends with exactly the
 * table's rows (rows of an earlier topic of this name, or deleted in a gap the stream could not replay).
 * A key is in the snapshot when the topic holds a read ({@code r}) event of it from that snapshot; any
 * other key whose last event in a partition leaves a row there is stale in that partition. Reads the
 * whole topic with read_committed and keeps the rows it holds in memory.
 */
final class PublishedRows {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A row the topic holds in {@code partition} under {@code key}: its last {@code after}. */
    record Stale(int partition, byte[] key, String afterJson) {}

    private record Slot(int partition, ByteBuffer key) {}

    private PublishedRows() {}

    /** The stale rows of change topic {@code name} against snapshot {@code snapshotId}, by partition and key. */
    static List<Stale> notIn(StreamLink link, String name, long snapshotId) {
        Map<Slot, String> last = new HashMap<>();
        Set<ByteBuffer> read = new HashSet<>();
        link.scan(name, (partition, offset, key, value) -> {
            if (key == null) {
                return;
            }
            Slot slot = new Slot(partition, ByteBuffer.wrap(key));
            if (value == null) {
                last.put(slot, null);
                return;
            }
            JsonNode event = event(name, partition, offset, value);
            JsonNode source = event.path("source");
            if (event.path("op").asText().equals("r")
                    && source.path("snapshot_id").canConvertToLong()
                    && source.path("snapshot_id").asLong() == snapshotId) {
                read.add(slot.key());
            }
            JsonNode after = event.path("after");
            last.put(slot, after.isNull() || after.isMissingNode() ? null : after.toString());
        });
        List<Stale> stale = new ArrayList<>();
        last.forEach((slot, after) -> {
            if (after != null && !read.contains(slot.key())) {
                stale.add(new Stale(slot.partition(), ByteBuffers.toByteArray(slot.key()), after));
            }
        });
        stale.sort(
                Comparator.comparingInt(Stale::partition).thenComparing(Stale::key, java.util.Arrays::compareUnsigned));
        return stale;
    }

    private static JsonNode event(String name, int partition, long offset, byte[] value) {
        try {
            return JSON.readTree(value);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "change topic " + name + " holds a record that is no change event at " + partition + ":" + offset
                            + ": " + e.getMessage(),
                    e);
        }
    }
}
