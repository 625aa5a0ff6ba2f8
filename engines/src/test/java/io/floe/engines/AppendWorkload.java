package io.floe.engines;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An append table: every record is a row, once; a wave is new records with ascending ids. */
final class AppendWorkload implements Workload {

    private static final int WAVE = 30;

    private int next;

    @Override
    public String topic() {
        return "events";
    }

    @Override
    public Map<String, String> configs() {
        return Map.of();
    }

    @Override
    public String schema() {
        return """
                {"type": "object",
                 "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "amount": {"type": "number"}},
                 "required": ["id"]}""";
    }

    @Override
    public String grownSchema() {
        return """
                {"type": "object",
                 "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "amount": {"type": "number"},
                                "tier": {"type": "integer"}},
                 "required": ["id"]}""";
    }

    @Override
    public List<String> columns(boolean grown) {
        List<String> columns = new ArrayList<>(KAFKA_COLUMNS);
        columns.addAll(List.of("id", "name", "amount"));
        if (grown) {
            columns.add("tier");
        }
        return columns;
    }

    @Override
    public List<Change> wave(boolean grown) {
        List<Change> wave = new ArrayList<>();
        for (int i = next; i < next + WAVE; i++) {
            Map<String, Object> value = new LinkedHashMap<>();
            value.put("id", (long) i);
            value.put("name", "n" + i % 7);
            // Every fifth record lacks an optional field, which must read as null in every engine.
            if (i % 5 != 0) {
                value.put("amount", i * 0.25);
            }
            if (grown && i % 3 != 0) {
                value.put("tier", (long) (i % 4));
            }
            wave.add(new Change("e" + i, value));
        }
        next += WAVE;
        return wave;
    }

    @Override
    public List<Change> inserts(boolean grown) {
        return wave(grown);
    }

    @Override
    public List<String> expectedRows(List<Produced> produced, List<String> columns) {
        List<String> rows = new ArrayList<>();
        for (Produced record : produced) {
            rows.add(RowText.of(columns, column -> Workload.column(record, column)));
        }
        return rows;
    }
}
