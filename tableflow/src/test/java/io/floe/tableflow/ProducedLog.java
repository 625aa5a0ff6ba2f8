package io.floe.tableflow;

import io.floe.tableflow.changes.Change;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.table.Watermark;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * What a test produced to a keyed topic, and the changes the log implies for an upsert table: computed
 * here from the records alone (per key, in offset order; a tombstone deletes, a record without a key or
 * with a value that does not fit is a dead letter), with the commit of each change taken from the
 * table's snapshot summaries. Changes are rendered as one line each, so answers compare exactly.
 */
final class ProducedLog {

    /** One produced record: its key (null: none), its balance (null: a tombstone), whether its value is bad. */
    record Produced(int partition, long offset, String key, Long balance, boolean bad) {
        boolean deadLetter() {
            return key == null || bad;
        }
    }

    private final Map<Integer, TreeMap<Long, Produced>> records = new HashMap<>();

    void add(Produced record) {
        records.computeIfAbsent(record.partition(), p -> new TreeMap<>()).put(record.offset(), record);
    }

    /**
     * The configs of a topic of the produced values written as a table in {@code mode}: JSON values
     * {@code {"id": ..., "balance": ...}}, compacted after two files, committed every 200 ms.
     */
    static Map<String, String> tableConfigs(String mode) {
        return Map.of(
                "floe.tableflow.enabled", "true",
                "floe.tableflow.mode", mode,
                "floe.tableflow.format", "json",
                "floe.tableflow.schema", """
                        {"type": "object",
                         "properties": {"id": {"type": "integer"}, "balance": {"type": "integer"}},
                         "required": ["id", "balance"]}""",
                "floe.tableflow.compaction.trigger.files", "2",
                "floe.tableflow.commit.interval.ms", "200");
    }

    /**
     * Sends {@code count} records of keys drawn from {@code keys} ids, a tombstone with probability
     * {@code tombstones}, now and then a value that does not fit the schema (a dead letter) and, if
     * {@code keyless}, now and then a record without a key (a dead letter too); adds each record at the
     * offset the log gave it.
     */
    void produce(
            KafkaProducer<byte[], byte[]> producer,
            String topic,
            Random random,
            int keys,
            int count,
            double tombstones,
            boolean keyless)
            throws InterruptedException, ExecutionException {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        List<Produced> unsent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int id = random.nextInt(keys);
            String key = keyless && random.nextInt(60) == 0 ? null : "key-" + id;
            boolean bad = random.nextInt(50) == 0;
            Long balance = random.nextDouble() < tombstones ? null : (long) random.nextInt(1_000_000);
            byte[] value = balance == null
                    ? null
                    : (bad ? "{\"id\": \"not a number\"}" : "{\"id\": " + id + ", \"balance\": " + balance + "}")
                            .getBytes(StandardCharsets.UTF_8);
            sent.add(producer.send(new ProducerRecord<>(
                    topic,
                    key == null ? id % producer.partitionsFor(topic).size() : null,
                    key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                    value)));
            unsent.add(new Produced(0, 0, key, balance, bad && balance != null));
        }
        for (int i = 0; i < sent.size(); i++) {
            RecordMetadata metadata = sent.get(i).get();
            Produced record = unsent.get(i);
            add(new Produced(metadata.partition(), metadata.offset(), record.key(), record.balance(), record.bad()));
        }
    }

    /** The table's commits, oldest first: snapshot id and its watermark (own or inherited). */
    static List<Map.Entry<Long, Watermark>> commits(Table table) {
        List<Snapshot> lineage = new ArrayList<>();
        SnapshotUtil.ancestorsOf(table.currentSnapshot().snapshotId(), table::snapshot)
                .forEach(lineage::add);
        Collections.reverse(lineage);
        List<Map.Entry<Long, Watermark>> commits = new ArrayList<>();
        Watermark mark = null;
        for (Snapshot snapshot : lineage) {
            String text = snapshot.summary().get(Watermark.SUMMARY_PROPERTY);
            mark = text == null ? mark : Watermark.parse(text);
            commits.add(Map.entry(snapshot.snapshotId(), mark));
        }
        return commits;
    }

    /** One expected change: the record that made it, the rows before and after (null: none), its commit. */
    private record Expected(Produced at, Produced before, Produced after, long snapshotId) {
        String render() {
            String op = before == null ? "c" : after == null ? "d" : "u";
            return op + " " + at.key() + " " + at.partition() + ":" + at.offset() + " before=" + row(before) + " after="
                    + row(after) + " commit=" + snapshotId;
        }
    }

    /** The full delta of {@code [from, to)}, in order: by commit, partition, offset. */
    List<String> full(Table table, Offsets from, Offsets to) {
        return changes(table, from, to).stream().map(Expected::render).toList();
    }

    /** The rows an append table gained in {@code [from, to)}: every record but the dead letters, in order. */
    List<String> appended(Table table, Offsets from, Offsets to) {
        List<Map.Entry<Long, Watermark>> commits = commits(table);
        List<Produced> range = new ArrayList<>();
        for (TreeMap<Long, Produced> partition : records.values()) {
            for (Produced record : partition.values()) {
                if (!record.bad()
                        && record.offset() >= from.get(record.partition())
                        && record.offset() < to.get(record.partition())) {
                    range.add(record);
                }
            }
        }
        range.sort(Comparator.comparingInt((Produced r) -> commitIndex(commits, r))
                .thenComparingInt(Produced::partition)
                .thenComparingLong(Produced::offset));
        return range.stream()
                .map(record -> new Expected(
                                record,
                                null,
                                record,
                                commits.get(commitIndex(commits, record)).getKey())
                        .render())
                .toList();
    }

    /** The inserts of the full delta. */
    List<String> inserts(Table table, Offsets from, Offsets to) {
        return full(table, from, to).stream()
                .filter(line -> line.startsWith("c "))
                .toList();
    }

    /** The min delta: per key, before its first change and after its last, ordered by each key's last change. */
    List<String> min(Table table, Offsets from, Offsets to) {
        Map<String, Expected> first = new HashMap<>();
        LinkedHashMap<String, Expected> last = new LinkedHashMap<>();
        for (Expected change : changes(table, from, to)) {
            first.putIfAbsent(change.at().key(), change);
            last.remove(change.at().key());
            last.put(change.at().key(), change);
        }
        List<String> net = new ArrayList<>();
        last.forEach((key, end) -> {
            Produced before = first.get(key).before();
            if (before != null || end.after() != null) {
                net.add(new Expected(end.at(), before, end.after(), end.snapshotId()).render());
            }
        });
        return net;
    }

    private List<Expected> changes(Table table, Offsets from, Offsets to) {
        List<Map.Entry<Long, Watermark>> commits = commits(table);
        Map<String, Produced> rows = new HashMap<>();
        List<Produced> range = new ArrayList<>();
        for (TreeMap<Long, Produced> partition : records.values()) {
            for (Produced record : partition.values()) {
                if (record.offset() < from.get(record.partition())) {
                    apply(rows, record);
                } else if (record.offset() < to.get(record.partition())) {
                    range.add(record);
                }
            }
        }
        range.sort(Comparator.comparingInt((Produced r) -> commitIndex(commits, r))
                .thenComparingInt(Produced::partition)
                .thenComparingLong(Produced::offset));
        List<Expected> changes = new ArrayList<>();
        for (Produced record : range) {
            if (record.deadLetter()) {
                continue;
            }
            Produced before = rows.get(record.key());
            Produced after = apply(rows, record);
            if (before != null || after != null) {
                changes.add(new Expected(
                        record,
                        before,
                        after,
                        commits.get(commitIndex(commits, record)).getKey()));
            }
        }
        return changes;
    }

    private static Produced apply(Map<String, Produced> rows, Produced record) {
        if (record.deadLetter()) {
            return rows.get(record.key());
        }
        if (record.balance() == null) {
            rows.remove(record.key());
            return null;
        }
        rows.put(record.key(), record);
        return record;
    }

    private static int commitIndex(List<Map.Entry<Long, Watermark>> commits, Produced record) {
        for (int i = 0; i < commits.size(); i++) {
            Watermark mark = commits.get(i).getValue();
            if (mark != null && mark.next(record.partition()) > record.offset()) {
                return i;
            }
        }
        throw new AssertionError("no commit holds " + record);
    }

    private static String row(Produced row) {
        return row == null ? "-" : row.partition() + ":" + row.offset() + "/" + row.balance();
    }

    /** A change of the engine's answer, rendered as {@link #full} renders the expected ones. */
    static String render(Change change) {
        String key = change.key() == null
                ? "null"
                : StandardCharsets.UTF_8.decode(change.key().duplicate()).toString();
        return render(change, key);
    }

    /** A change of the engine's answer with its key shown as {@code key}. */
    static String render(Change change, String key) {
        return change.op().code() + " " + key + " " + change.partition() + ":" + change.offset() + " before="
                + row(change.before()) + " after=" + row(change.after()) + " commit="
                + (change.commit() == null ? "null" : change.commit().snapshotId());
    }

    private static String row(Record row) {
        return row == null
                ? "-"
                : row.getField("kafka_partition") + ":" + row.getField("kafka_offset") + "/" + row.getField("balance");
    }

    static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
