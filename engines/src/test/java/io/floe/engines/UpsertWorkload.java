package io.floe.engines;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An upsert table: the newest row per record key, a tombstone deleting the key's row. The first wave
 * inserts keys; each later one updates some keys and inserts new ones, and once {@link #deletes} was
 * called it also deletes two keys and brings a deleted one back.
 */
final class UpsertWorkload implements Workload {

    private static final int FIRST_KEYS = 60;
    private static final int UPDATES = 12;
    private static final int INSERTS = 4;

    private int waves;
    private int keys;
    private long balance = 1000;
    private boolean deleting;

    @Override
    public String topic() {
        return "balances";
    }

    @Override
    public Map<String, String> configs() {
        return Map.of("floe.tableflow.mode", "upsert");
    }

    @Override
    public String schema() {
        return """
                {"type": "object",
                 "properties": {"id": {"type": "integer"}, "balance": {"type": "integer"}},
                 "required": ["id", "balance"]}""";
    }

    @Override
    public String grownSchema() {
        return """
                {"type": "object",
                 "properties": {"id": {"type": "integer"}, "balance": {"type": "integer"}, "status": {"type": "string"}},
                 "required": ["id", "balance"]}""";
    }

    @Override
    public List<String> columns(boolean grown) {
        List<String> columns = new ArrayList<>(KAFKA_COLUMNS);
        columns.addAll(List.of("id", "balance"));
        if (grown) {
            columns.add("status");
        }
        return columns;
    }

    @Override
    public List<Change> wave(boolean grown) {
        List<Change> wave = new ArrayList<>();
        int wave0 = waves++;
        if (wave0 == 0) {
            while (keys < FIRST_KEYS) {
                wave.add(put(keys++, grown));
            }
            return wave;
        }
        for (int j = 0; j < UPDATES; j++) {
            wave.add(put((wave0 * 7 + j * 5) % keys, grown));
        }
        for (int j = 0; j < INSERTS; j++) {
            wave.add(put(keys++, grown));
        }
        if (deleting) {
            wave.add(tombstone((wave0 * 11) % keys));
            wave.add(tombstone((wave0 * 11 + 3) % keys));
            // A key deleted before comes back.
            wave.add(put(((wave0 - 1) * 11) % keys, grown));
        }
        return wave;
    }

    @Override
    public List<Change> inserts(boolean grown) {
        List<Change> wave = new ArrayList<>();
        for (int j = 0; j < INSERTS; j++) {
            wave.add(put(keys++, grown));
        }
        return wave;
    }

    /** Tombstones for every third key, and for a key that never had a row. */
    List<Change> deletes() {
        deleting = true;
        List<Change> wave = new ArrayList<>();
        for (int key = 1; key < keys; key += 3) {
            wave.add(tombstone(key));
        }
        wave.add(new Change("a" + (keys + 1000), null));
        return wave;
    }

    @Override
    public List<String> expectedRows(List<Produced> produced, List<String> columns) {
        Map<String, Produced> newest = new TreeMap<>();
        List<Produced> inOrder = new ArrayList<>(produced);
        inOrder.sort(Comparator.comparingInt(Produced::partition).thenComparingLong(Produced::offset));
        for (Produced record : inOrder) {
            if (record.change().value() == null) {
                newest.remove(record.change().key());
            } else {
                newest.put(record.change().key(), record);
            }
        }
        List<String> rows = new ArrayList<>();
        for (Produced record : newest.values()) {
            rows.add(RowText.of(columns, column -> Workload.column(record, column)));
        }
        return rows;
    }

    private Change put(int key, boolean grown) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("id", (long) key);
        value.put("balance", balance++);
        // Some updates after the schema grew still leave the new field out: it reads as null.
        if (grown && balance % 4 != 0) {
            value.put("status", "s" + balance % 3);
        }
        return new Change("a" + key, value);
    }

    private static Change tombstone(int key) {
        return new Change("a" + key, null);
    }
}
