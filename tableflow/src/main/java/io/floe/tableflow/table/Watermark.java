package io.floe.tableflow.table;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * How far a table has materialized its topic: per partition, the next offset to read. It is written
 * into the summary of every snapshot the job commits, in the same catalog commit as the data, so the
 * table itself says exactly which records it holds; a job that starts (after a crash, on another agent)
 * resumes from it. The topic id guards against a topic deleted and created again under the same name.
 */
public record Watermark(UUID topicId, SortedMap<Integer, Long> nextOffsets) {

    /** The snapshot summary property that holds the watermark. */
    public static final String SUMMARY_PROPERTY = "floe.watermark";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    public Watermark {
        Objects.requireNonNull(topicId, "topicId");
        nextOffsets = Collections.unmodifiableSortedMap(new TreeMap<>(nextOffsets));
    }

    public static Watermark empty(UUID topicId) {
        return new Watermark(topicId, new TreeMap<>());
    }

    /** The next offset of {@code partition} to materialize, or -1 when the table has none of it yet. */
    public long next(int partition) {
        return nextOffsets.getOrDefault(partition, -1L);
    }

    public Watermark with(Map<Integer, Long> advanced) {
        TreeMap<Integer, Long> next = new TreeMap<>(nextOffsets);
        next.putAll(advanced);
        return new Watermark(topicId, next);
    }

    /** On every partition the higher of this watermark and {@code other} (of the same topic). */
    public Watermark atLeast(Watermark other) {
        if (!topicId.equals(other.topicId)) {
            throw new IllegalArgumentException("watermarks of different topics " + topicId + " and " + other.topicId);
        }
        TreeMap<Integer, Long> next = new TreeMap<>(nextOffsets);
        other.nextOffsets.forEach((partition, offset) -> next.merge(partition, offset, Math::max));
        return new Watermark(topicId, next);
    }

    /**
     * The watermark of the table's current snapshot, or of its nearest ancestor that has one (a
     * snapshot another engine committed carries none); empty for a table without one.
     */
    public static Optional<Watermark> of(Table table) {
        Snapshot snapshot = table.currentSnapshot();
        while (snapshot != null) {
            String text = snapshot.summary().get(SUMMARY_PROPERTY);
            if (text != null) {
                return Optional.of(parse(text));
            }
            snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
        }
        return Optional.empty();
    }

    public String toJson() {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("topicId", topicId.toString());
        ObjectNode partitions = root.putObject("next");
        nextOffsets.forEach((partition, next) -> partitions.put(Integer.toString(partition), next));
        return root.toString();
    }

    public static Watermark parse(String json) {
        try {
            JsonNode root = MAPPER.readTree(json);
            TreeMap<Integer, Long> next = new TreeMap<>();
            for (Map.Entry<String, JsonNode> field : root.path("next").properties()) {
                next.put(Integer.parseInt(field.getKey()), field.getValue().asLong());
            }
            return new Watermark(UUID.fromString(root.path("topicId").asText()), next);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalStateException("snapshot summary " + SUMMARY_PROPERTY + " is malformed: " + json, e);
        }
    }
}
