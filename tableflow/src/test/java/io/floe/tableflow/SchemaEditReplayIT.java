package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.changes.Change;
import io.floe.tableflow.changes.ChangeKind;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.changes.ChangeQuery;
import io.floe.tableflow.changes.ChangeQueryException;
import io.floe.tableflow.changes.CommitOffsets;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.changes.Point;
import io.floe.tableflow.rows.UpsertKey;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change queries, and the change topic's replay (one query per pair of consecutive commits, as {@code
 * ChangeStream} plans them), over tables whose topic settings were edited in ways the schema check
 * accepts but that change which records fit: a JSON {@code enum} narrowed, a property made required and
 * then another no longer, the format switched from JSON to Avro. Every answer is what the table applied:
 * records refused then stay refused and records applied then stay applied, whatever the settings say now;
 * each change's before image is the row the table held for its key, and after each commit's changes the
 * rows are the table's rows at that commit, column by column. Append tables answer from their rows, and
 * agree as well.
 */
class SchemaEditReplayIT {

    private static final int MAX_POLLS = 50;
    private static final String TIERS = """
            {"type": "object", "required": ["balance"], "properties": {
              "balance": {"type": "integer"}, "tier": {"type": "string", "enum": ["gold", "silver", "bronze"]}}}""";
    private static final String TIERS_NARROWED = TIERS.replace(", \"bronze\"]", "]");
    private static final String REQUIRED_BALANCE = """
            {"type": "object", "required": ["balance"], "properties": {
              "balance": {"type": "integer"}, "tier": {"type": "string"}}}""";
    private static final String REQUIRED_BOTH = REQUIRED_BALANCE.replace("[\"balance\"]", "[\"balance\", \"tier\"]");
    private static final String REQUIRED_TIER = REQUIRED_BALANCE.replace("[\"balance\"]", "[\"tier\"]");
    private static final String ACCOUNTS_JSON = """
            {"type": "object", "required": ["id", "balance"], "properties": {
              "id": {"type": "integer"}, "balance": {"type": "integer"}}}""";
    private static final String ACCOUNTS_AVRO = """
            {"type": "record", "name": "Account", "fields": [
              {"name": "id", "type": "long"}, {"name": "balance", "type": "long"}]}""";
    private static final String ACCOUNT_KEY_AVRO = """
            {"type": "record", "name": "AccountKey", "fields": [{"name": "id", "type": "long"}]}""";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private final ManualClock clock = new ManualClock();
    private TableJobs jobs;
    private ChangeQueries changes;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir);
        jobs = new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool")),
                "agent-1",
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                floe.meters);
        changes = floe.changeQueries();
    }

    @AfterEach
    void stop() throws Exception {
        floe.close();
    }

    @Test
    void narrowedEnumKeepsTheChangesTheTableApplied() {
        for (String mode : List.of("upsert", "append")) {
            String topic = mode + "_tiers";
            create(topic, mode, TIERS, Map.of());
            produce(
                    topic,
                    json("a", "{\"balance\": 1, \"tier\": \"bronze\"}"),
                    json("b", "{\"balance\": 2," + " \"tier\": \"gold\"}"),
                    json("c", "{\"balance\": 3, \"tier\": \"silver\"}"),
                    json("d", "oops"));
            catchUp(topic);
            edit(topic, Map.of("floe.tableflow.schema", TIERS_NARROWED));
            produce(
                    topic,
                    json("a", "{\"balance\": 11, \"tier\": \"gold\"}"),
                    json("e", "{\"balance\": 5, \"tier\": \"bronze\"}"),
                    json("b", mode.equals("upsert") ? null : "{\"balance\": 6, \"tier\": \"gold\"}"),
                    json("c", "{\"balance\": 13, \"tier\": \"bronze\"}"));
            catchUp(topic);
        }
        assertThat(full("upsert_tiers"))
                .containsExactly(
                        "c a 0 before=- after=0/balance=1,tier=bronze",
                        "c b 1 before=- after=1/balance=2,tier=gold",
                        "c c 2 before=- after=2/balance=3,tier=silver",
                        "u a 4 before=0/balance=1,tier=bronze after=4/balance=11,tier=gold",
                        "d b 6 before=1/balance=2,tier=gold after=-");
        assertReplayFollowsTheTable("upsert_tiers");
        assertThat(full("append_tiers"))
                .containsExactly(
                        "c a 0 before=- after=0/balance=1,tier=bronze",
                        "c b 1 before=- after=1/balance=2,tier=gold",
                        "c c 2 before=- after=2/balance=3,tier=silver",
                        "c a 4 before=- after=4/balance=11,tier=gold",
                        "c b 6 before=- after=6/balance=6,tier=gold");
        assertReplayFollowsTheTable("append_tiers");
    }

    @Test
    void requiredPropertiesEditedKeepRefusedRecordsRefusedAndAppliedOnesApplied() {
        String topic = "required";
        create(topic, "upsert", REQUIRED_BALANCE, Map.of());
        produce(
                topic,
                json("a", "{\"balance\": 1}"),
                json("b", "{\"balance\": 2, \"tier\": \"x\"}"),
                json("f", "{\"tier\": \"z\"}"));
        catchUp(topic);
        edit(topic, Map.of("floe.tableflow.schema", REQUIRED_BOTH));
        produce(
                topic,
                json("a", "{\"balance\": 3}"),
                json("b", "{\"balance\": 4, \"tier\": \"y\"}"),
                json("g", "{\"tier\": \"w\"}"));
        catchUp(topic);
        edit(topic, Map.of("floe.tableflow.schema", REQUIRED_TIER));
        produce(topic, json("h", "{\"tier\": \"v\"}"), json("a", "{\"balance\": 7}"));
        catchUp(topic);

        assertThat(full(topic))
                .containsExactly(
                        "c a 0 before=- after=0/balance=1,tier=null",
                        "c b 1 before=- after=1/balance=2,tier=x",
                        "u b 4 before=1/balance=2,tier=x after=4/balance=4,tier=y",
                        "c h 6 before=- after=6/balance=null,tier=v");
        assertReplayFollowsTheTable(topic);
    }

    @Test
    void formatSwitchedFromJsonToAvroReplaysEachCommitInItsOwnFormat() {
        for (String mode : List.of("upsert", "append")) {
            String topic = mode + "_accounts";
            create(
                    topic,
                    mode,
                    ACCOUNTS_JSON,
                    mode.equals("upsert") ? Map.of("floe.tableflow.upsert.key.columns", "id") : Map.of());
            produce(
                    topic,
                    json("k1", "{\"id\": 1, \"balance\": 10}"),
                    json("k2", "{\"id\": 2, \"balance\": 20}"),
                    json("k3", "{\"id\": 3, \"balance\": 30}"),
                    json("{\"id\": 2}", mode.equals("upsert") ? null : "{\"id\": 2, \"balance\": 21}"),
                    json(null, "not json"));
            catchUp(topic);
            edit(topic, Map.of("floe.tableflow.format", "avro", "floe.tableflow.schema", ACCOUNTS_AVRO));
            produce(
                    topic,
                    record(bytes("k1"), avro(ACCOUNTS_AVRO, Map.of("id", 1L, "balance", 11L))),
                    mode.equals("upsert")
                            ? record(avro(ACCOUNT_KEY_AVRO, Map.of("id", 3L)), null)
                            : record(bytes("k3"), avro(ACCOUNTS_AVRO, Map.of("id", 3L, "balance", 31L))),
                    json("k4", "{\"id\": 4, \"balance\": 40}"),
                    record(bytes("k4"), avro(ACCOUNTS_AVRO, Map.of("id", 4L, "balance", 44L))));
            catchUp(topic);
        }
        assertThat(full("upsert_accounts"))
                .containsExactly(
                        "c id=1 0 before=- after=0/balance=10,id=1",
                        "c id=2 1 before=- after=1/balance=20,id=2",
                        "c id=3 2 before=- after=2/balance=30,id=3",
                        "d id=2 3 before=1/balance=20,id=2 after=-",
                        "u id=1 5 before=0/balance=10,id=1 after=5/balance=11,id=1",
                        "d id=3 6 before=2/balance=30,id=3 after=-",
                        "c id=4 8 before=- after=8/balance=44,id=4");
        assertReplayFollowsTheTable("upsert_accounts");
        assertThat(full("append_accounts"))
                .containsExactly(
                        "c id=1 0 before=- after=0/balance=10,id=1",
                        "c id=2 1 before=- after=1/balance=20,id=2",
                        "c id=3 2 before=- after=2/balance=30,id=3",
                        "c id=2 3 before=- after=3/balance=21,id=2",
                        "c id=1 5 before=- after=5/balance=11,id=1",
                        "c id=3 6 before=- after=6/balance=31,id=3",
                        "c id=4 8 before=- after=8/balance=44,id=4");
        assertReplayFollowsTheTable("append_accounts");
    }

    /**
     * Commits that recorded no decoding settings (made before they were recorded; here, their record
     * removed): the dead-letter table says what was refused, and a record it does not hold that today's
     * settings refuse was applied, so its change cannot be rebuilt and the answer is refused, not cut.
     */
    @Test
    void commitsWithoutRecordedSettingsFollowTheDeadLetterTable() {
        String topic = "required";
        requiredPropertiesEditedKeepRefusedRecordsRefusedAndAppliedOnesApplied();
        Table table = floe.tables.load(topic).orElseThrow();
        var forget = table.updateProperties();
        table.properties().keySet().stream()
                .filter(name -> name.startsWith("floe.tableflow.decoding."))
                .forEach(forget::remove);
        forget.commit();
        assertThat(floe.tables.load(topic).orElseThrow().properties())
                .as("no decoding settings left")
                .noneSatisfy((name, value) -> assertThat(name).startsWith("floe.tableflow.decoding."));

        // Offset 0 ({"balance": 1}) was applied; today's schema requires tier.
        assertThatThrownBy(() -> full(topic))
                .isInstanceOf(ChangeQueryException.class)
                .hasMessageContaining("offset 0 of partition 0")
                .hasMessageContaining("required field tier is missing");
        // From the first commit on: g ({"tier": "w"}) fits today's schema, and the dead-letter table holds it.
        List<CommitOffsets> commits = changes.commitOffsets(topic);
        Offsets first = commits.get(0).watermark();
        assertThat(answer(topic, new Point.AtOffsets(first), new Point.Latest()))
                .containsExactly(
                        "u b 4 before=1/balance=2,tier=x after=4/balance=4,tier=y",
                        "c h 6 before=- after=6/balance=null,tier=v");
    }

    /**
     * The table keeps the settings of every edit that a snapshot still names, and only those: each edit
     * adds one table property, and the next edit drops those whose snapshots have all expired.
     */
    @Test
    void decodingSettingsAreKeptWhileASnapshotNamesThem() {
        String topic = "required";
        requiredPropertiesEditedKeepRefusedRecordsRefusedAndAppliedOnesApplied();
        assertThat(decodingSettings(topic)).hasSize(3).isEqualTo(namedBySnapshots(topic));

        Table table = floe.tables.load(topic).orElseThrow();
        table.expireSnapshots()
                .expireOlderThan(table.currentSnapshot().timestampMillis() + 1)
                .retainLast(1)
                .commit();
        List<CommitOffsets> kept = changes.commitOffsets(topic);
        Offsets before = kept.get(kept.size() - 1).watermark();
        edit(topic, Map.of("floe.tableflow.schema", REQUIRED_BALANCE.replace("\"balance\"]", "]")));
        produce(topic, json("i", "{}"));
        catchUp(topic);
        assertThat(decodingSettings(topic)).hasSizeLessThan(3).isEqualTo(namedBySnapshots(topic));
        assertThat(answer(topic, new Point.AtOffsets(before), new Point.Latest()))
                .containsExactly("c i 8 before=- after=8/balance=null,tier=null");
    }

    /** The fingerprints whose settings the table keeps. */
    private java.util.Set<String> decodingSettings(String topic) {
        java.util.Set<String> kept = new java.util.TreeSet<>();
        floe.tables.load(topic).orElseThrow().properties().keySet().stream()
                .filter(name -> name.startsWith("floe.tableflow.decoding."))
                .forEach(name -> kept.add(name.substring("floe.tableflow.decoding.".length())));
        return kept;
    }

    /** The fingerprints the table's snapshots name. */
    private java.util.Set<String> namedBySnapshots(String topic) {
        java.util.Set<String> named = new java.util.TreeSet<>();
        for (var snapshot : floe.tables.load(topic).orElseThrow().snapshots()) {
            String fingerprint = snapshot.summary().get("floe.tableflow.decoding");
            if (fingerprint != null) {
                named.add(fingerprint);
            }
        }
        return named;
    }

    /**
     * The change topic's walk, one full query per pair of consecutive commits: each change's before image
     * is the key's row so far, the rows after each commit are the table's at that commit (every column),
     * and the walk publishes exactly what one query over the whole table answers.
     */
    private void assertReplayFollowsTheTable(String topic) {
        Table table = floe.tables.load(topic).orElseThrow();
        UpsertKey key = UpsertKey.of(table.schema());
        boolean upsert = isUpsert(table);
        Map<String, String> rows = new TreeMap<>();
        List<String> walked = new ArrayList<>();
        Offsets at = Offsets.of(Map.of(0, 0L));
        for (CommitOffsets commit : changes.commitOffsets(topic)) {
            if (commit.watermark().equals(at)) {
                continue;
            }
            ChangeQuery query = changes.plan(
                    topic, new Point.AtOffsets(at), new Point.AtOffsets(commit.watermark()), ChangeKind.FULL);
            run(query, change -> {
                String changed = upsert ? hex(change.key()) : change.partition() + ":" + change.offset();
                assertThat(whole(change.before(), table))
                        .as("before image of %s in %s", render(change), topic)
                        .isEqualTo(rows.get(changed));
                if (change.after() == null) {
                    rows.remove(changed);
                } else {
                    rows.put(changed, whole(change.after(), table));
                }
                walked.add(render(change));
            });
            Map<String, String> held = new TreeMap<>();
            for (Record row : rowsAt(table, commit.commit().snapshotId())) {
                held.put(
                        upsert
                                ? hex(key.of(row))
                                : row.getField("kafka_partition") + ":" + row.getField("kafka_offset"),
                        whole(row, table));
            }
            assertThat(rows)
                    .as(
                            "rows after the changes up to snapshot %s of %s",
                            commit.commit().snapshotId(), topic)
                    .isEqualTo(held);
            at = commit.watermark();
        }
        assertThat(walked).as("the walk publishes what one query answers").isEqualTo(full(topic));
    }

    private static boolean isUpsert(Table table) {
        return "upsert".equals(table.properties().get("floe.tableflow.mode"));
    }

    private List<String> full(String topic) {
        return answer(topic, new Point.Earliest(), new Point.Latest());
    }

    private List<String> answer(String topic, Point from, Point to) {
        List<String> lines = new ArrayList<>();
        run(changes.plan(topic, from, to, ChangeKind.FULL), change -> lines.add(render(change)));
        return lines;
    }

    private static void run(ChangeQuery query, java.util.function.Consumer<Change> sink) {
        try {
            query.run(sink::accept);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code op key offset before=... after=...}, a row as its offset and value columns. */
    private static String render(Change change) {
        Record row = change.after() != null ? change.after() : change.before();
        String key = row.struct().field("id") != null
                ? "id=" + row.getField("id")
                : StandardCharsets.UTF_8.decode(change.key().duplicate()).toString();
        return change.op().code() + " " + key + " " + change.offset() + " before=" + values(change.before()) + " after="
                + values(change.after());
    }

    private static String values(Record row) {
        if (row == null) {
            return "-";
        }
        List<String> values = new ArrayList<>();
        for (Types.NestedField field : row.struct().fields()) {
            if (!field.name().startsWith("kafka_")) {
                values.add(field.name() + "=" + row.getField(field.name()));
            }
        }
        values.sort(null);
        return row.getField("kafka_offset") + "/" + String.join(",", values);
    }

    /** Every column of {@code table} in {@code row}, bytes in hex; null for no row. */
    private static String whole(Record row, Table table) {
        if (row == null) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        for (Types.NestedField field : table.schema().columns()) {
            Object value = row.getField(field.name());
            text.append(field.name())
                    .append('=')
                    .append(value instanceof ByteBuffer buffer ? hex(buffer) : String.valueOf(value))
                    .append(';');
        }
        return text.toString();
    }

    private static String hex(ByteBuffer bytes) {
        ByteBuffer copy = bytes.duplicate();
        byte[] array = new byte[copy.remaining()];
        copy.get(array);
        return HexFormat.of().formatHex(array);
    }

    private static List<Record> rowsAt(Table table, long snapshotId) {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private void create(String topic, String mode, String schema, Map<String, String> more) {
        Map<String, String> configs = new HashMap<>(Map.of(
                "floe.tableflow.enabled", "true",
                "floe.tableflow.mode", mode,
                "floe.tableflow.format", "json",
                "floe.tableflow.schema", schema,
                "floe.tableflow.commit.interval.ms", "1"));
        configs.putAll(more);
        floe.agent.topics().create(new NewTopic(topic, 1, configs), false);
    }

    /** Changes the topic's configs as AlterConfigs does, through the agent's checks (the schema change's too). */
    private void edit(String topic, Map<String, String> configs) {
        floe.agent
                .topics()
                .alterConfigs(
                        topic,
                        current -> {
                            Map<String, String> next = new HashMap<>(current.configs());
                            next.putAll(configs);
                            return next;
                        },
                        false);
    }

    private void produce(String topicName, SimpleRecord... records) {
        Topic topic = floe.agent.topics().find(topicName).orElseThrow();
        floe.agent
                .produce()
                .append(
                        topic,
                        0,
                        MemoryRecords.withRecords(Compression.NONE, records).buffer())
                .join();
    }

    private void catchUp(String topic) {
        TablePolls.untilCaughtUp(floe, topic, clock, jobs, MAX_POLLS);
    }

    private SimpleRecord json(String key, String value) {
        return record(key == null ? null : bytes(key), value == null ? null : bytes(value));
    }

    private SimpleRecord record(byte[] key, byte[] value) {
        return new SimpleRecord(clock.millis(), key, value);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] avro(String schemaText, Map<String, Object> fields) {
        Schema schema = new Schema.Parser().parse(schemaText);
        GenericData.Record datum = new GenericData.Record(schema);
        fields.forEach(datum::put);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        try {
            new GenericDatumWriter<GenericData.Record>(schema).write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
