package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.Topic;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table written before the metadata columns were renamed ({@code _partition}, {@code _offset},
 * {@code _timestamp}, {@code _key}, {@code _headers}; dead letters {@code _value}, {@code _error}), day
 * partitioned, is taken over by the current job: its columns are renamed by field id, its data files
 * and partition spec stay as they were, and the old rows and the new ones read back under the new
 * names with the values produced.
 */
@Timeout(180)
class LegacyColumnsIT {

    private static final String TOPIC = "legacy";
    private static final String SCHEMA = """
            {"type": "object", "properties": {"id": {"type": "integer"}, "customer": {"type": "string"}},
             "required": ["id", "customer"]}""";
    private static final Instant DAY0 = Instant.parse("2026-11-28T00:00:00Z");

    @TempDir
    Path dataDir;

    private TableflowHarness floe;

    @AfterEach
    void stop() throws Exception {
        floe.close();
    }

    @Test
    void aTableWithTheOldColumnNamesIsRenamedInPlaceAndKeepsItsFilesSpecAndRows() throws Exception {
        floe = new TableflowHarness(dataDir);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1)
                            .configs(Map.of(
                                    "floe.tableflow.enabled",
                                    "true",
                                    "floe.tableflow.format",
                                    "json",
                                    "floe.tableflow.schema",
                                    SCHEMA,
                                    "floe.tableflow.partitioning",
                                    "day",
                                    "floe.tableflow.commit.interval.ms",
                                    "200",
                                    // No compaction: the test checks that the old data files themselves are still the
                                    // table's.
                                    "floe.tableflow.maintenance.enabled",
                                    "false"))))
                    .all()
                    .get();
        }
        Map<String, String> expected = new HashMap<>();
        List<Sent> before = produce(0, 30, expected);
        Topic topic = floe.metadata.topic(TOPIC).orElseThrow();

        // The tables as the job wrote them before the rename, holding the first 30 records.
        Schema legacy = legacyTableSchema();
        Table table = createLegacyTable(
                TableIdentifier.of("floe", TOPIC),
                legacy,
                PartitionSpec.builderFor(legacy).day("_timestamp").build());
        Table deadLetters = createLegacyTable(
                TableIdentifier.of("floe_dead_letters", TOPIC),
                legacyDeadLetterSchema(),
                PartitionSpec.unpartitioned());
        Map<Integer, Long> next = new TreeMap<>();
        before.forEach(sent -> next.merge(sent.partition, sent.offset + 1, Math::max));
        Watermark mark = Watermark.empty(topic.id()).with(next);
        List<GenericRecord> oldRows = new ArrayList<>();
        List<GenericRecord> oldDead = new ArrayList<>();
        for (Sent sent : before) {
            if (sent.bad) {
                GenericRecord row = legacyMetadataRow(deadLetters.schema(), sent);
                row.setField("_value", ByteBuffer.wrap(bytes(sent.value)));
                row.setField("_error", "not valid JSON (written before the rename)");
                oldDead.add(row);
            } else {
                GenericRecord row = legacyMetadataRow(table.schema(), sent);
                row.setField("id", (long) sent.index);
                row.setField("customer", "c" + sent.index % 5);
                oldRows.add(row);
            }
        }
        Set<String> oldFiles = append(table, oldRows, mark);
        append(deadLetters, oldDead, mark);
        assertThat(oldFiles).as("one file per day of the old rows").hasSize(4);
        int timestampId = legacy.findField("_timestamp").fieldId();

        produce(30, 30, expected);
        floe.startTableflow(dataDir.resolve("spool"));
        Table migrated = floe.awaitCaughtUp(TOPIC, Duration.ofSeconds(60));

        // Renamed by field id: same ids, new names, no old name left, nothing added.
        for (Map.Entry<String, String> rename : Map.of(
                        "_partition",
                        Rows.PARTITION,
                        "_offset",
                        Rows.OFFSET,
                        "_timestamp",
                        Rows.TIMESTAMP,
                        "_key",
                        Rows.KEY,
                        "_headers",
                        Rows.HEADERS)
                .entrySet()) {
            assertThat(migrated.schema().findField(rename.getKey()))
                    .as(rename.getKey())
                    .isNull();
            assertThat(migrated.schema().findField(rename.getValue()).fieldId())
                    .as(rename.getValue())
                    .isEqualTo(legacy.findField(rename.getKey()).fieldId());
        }
        assertThat(migrated.schema().columns()).hasSameSizeAs(legacy.columns());
        // The partition spec is the one the table was created with, on the renamed column.
        assertThat(migrated.specs()).hasSize(1);
        PartitionField day = migrated.spec().fields().get(0);
        assertThat(day.sourceId()).isEqualTo(timestampId);
        assertThat(day.transform().toString()).isEqualTo("day");
        // No data file was rewritten: the old ones are still the table's, and the new rows went to day partitions.
        Map<String, DataFile> files = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = migrated.newScan().planFiles()) {
            tasks.forEach(task -> files.put(task.file().location(), task.file()));
        }
        assertThat(files.keySet()).containsAll(oldFiles).hasSizeGreaterThan(oldFiles.size());
        files.values()
                .forEach(file -> assertThat(file.partition().get(0, Integer.class))
                        .as(file.location())
                        .isNotNull());
        // Records 32 and later are from day 4 on, after every old row: a filter on the renamed column prunes
        // by the day partitions and plans none of the old files.
        List<String> planned = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = migrated.newScan()
                .filter(Expressions.greaterThanOrEqual(
                        Rows.TIMESTAMP, DAY0.plus(Duration.ofDays(4)).toEpochMilli() * 1000))
                .planFiles()) {
            tasks.forEach(task -> planned.add(task.file().location()));
        }
        assertThat(planned).isNotEmpty().doesNotContainAnyElementsOf(oldFiles);

        Map<String, String> read = new HashMap<>();
        for (Record row : TableflowHarness.rows(migrated)) {
            read.put(
                    row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET),
                    describe(
                            ((OffsetDateTime) row.getField(Rows.TIMESTAMP)).toInstant(),
                            text((ByteBuffer) row.getField(Rows.KEY)),
                            headers(row.getField(Rows.HEADERS)),
                            (Long) row.getField("id"),
                            (String) row.getField("customer")));
        }
        Map<String, String> good = new HashMap<>(expected);
        good.values().removeIf(value -> value.startsWith("bad "));
        assertThat(read).isEqualTo(good);

        Table dead = floe.tables.loadDeadLetters(TOPIC).orElseThrow();
        assertThat(dead.schema().findField("_value")).isNull();
        assertThat(dead.schema().findField("_error")).isNull();
        List<String> deadValues = new ArrayList<>();
        for (Record row : TableflowHarness.rows(dead)) {
            deadValues.add(text((ByteBuffer) row.getField(Rows.DEAD_VALUE)) + " | " + row.getField(Rows.DEAD_REASON));
        }
        assertThat(deadValues)
                .hasSize(2)
                .anySatisfy(value -> assertThat(value).startsWith("not json 0 | not valid JSON"))
                .anySatisfy(value -> assertThat(value).startsWith("not json 30 | "));
    }

    private record Sent(
            int index, int partition, long offset, Instant timestamp, String key, String value, boolean bad) {}

    /** Records {@code from} to {@code from + count - 1}, every 30th one not JSON (a dead letter), 3 hours apart. */
    private List<Sent> produce(int from, int count, Map<String, String> expected) throws Exception {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        List<Sent> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            List<Sent> pending = new ArrayList<>();
            for (int i = from; i < from + count; i++) {
                Instant timestamp = DAY0.plus(Duration.ofHours(3L * i));
                boolean bad = i % 30 == 0;
                String value = bad ? "not json " + i : "{\"id\": " + i + ", \"customer\": \"c" + i % 5 + "\"}";
                ProducerRecord<byte[], byte[]> record =
                        new ProducerRecord<>(TOPIC, i % 2, timestamp.toEpochMilli(), bytes("k" + i), bytes(value));
                record.headers().add("n", bytes("h" + i));
                sends.add(producer.send(record));
                pending.add(new Sent(i, 0, 0, timestamp, "k" + i, value, bad));
            }
            for (int i = 0; i < sends.size(); i++) {
                RecordMetadata metadata = sends.get(i).get();
                Sent s = pending.get(i);
                Sent done =
                        new Sent(s.index, metadata.partition(), metadata.offset(), s.timestamp, s.key, s.value, s.bad);
                sent.add(done);
                expected.put(
                        done.partition + "/" + done.offset,
                        s.bad
                                ? "bad " + s.value
                                : describe(s.timestamp, s.key, "n=h" + s.index, s.index, "c" + s.index % 5));
            }
        }
        return sent;
    }

    private static String describe(Instant timestamp, String key, String headers, long id, String customer) {
        return timestamp + " " + key + " [" + headers + "] " + id + " " + customer;
    }

    @SuppressWarnings("unchecked")
    private static String headers(Object headers) {
        List<String> pairs = new ArrayList<>();
        for (Record header : (List<Record>) headers) {
            pairs.add(header.getField("key") + "=" + text((ByteBuffer) header.getField("value")));
        }
        return String.join(",", pairs);
    }

    /** The main branch's table layout before the rename (Rows at cc0df33), with this topic's value columns. */
    private static Schema legacyTableSchema() {
        List<Types.NestedField> fields = new ArrayList<>(legacyMetadataColumns());
        fields.add(Types.NestedField.optional(0, "id", Types.LongType.get()));
        fields.add(Types.NestedField.optional(0, "customer", Types.StringType.get()));
        return freshIds(fields);
    }

    private static Schema legacyDeadLetterSchema() {
        List<Types.NestedField> fields = new ArrayList<>(legacyMetadataColumns());
        fields.add(Types.NestedField.optional(0, "_value", Types.BinaryType.get()));
        fields.add(Types.NestedField.required(0, "_error", Types.StringType.get()));
        return freshIds(fields);
    }

    private static List<Types.NestedField> legacyMetadataColumns() {
        return List.of(
                Types.NestedField.required(0, "_partition", Types.IntegerType.get(), "Kafka partition"),
                Types.NestedField.required(0, "_offset", Types.LongType.get(), "Kafka offset"),
                Types.NestedField.required(0, "_timestamp", Types.TimestampType.withZone(), "Kafka record timestamp"),
                Types.NestedField.optional(0, "_key", Types.BinaryType.get(), "Kafka record key"),
                Types.NestedField.optional(
                        0,
                        "_headers",
                        Types.ListType.ofRequired(
                                0,
                                Types.StructType.of(
                                        Types.NestedField.required(0, "key", Types.StringType.get()),
                                        Types.NestedField.optional(0, "value", Types.BinaryType.get()))),
                        "Kafka record headers"));
    }

    private static Schema freshIds(List<Types.NestedField> fields) {
        AtomicInteger ids = new AtomicInteger();
        Type type = TypeUtil.assignFreshIds(Types.StructType.of(fields), ids::incrementAndGet);
        return new Schema(type.asStructType().fields());
    }

    private static GenericRecord legacyMetadataRow(Schema schema, Sent sent) {
        GenericRecord row = GenericRecord.create(schema);
        row.setField("_partition", sent.partition);
        row.setField("_offset", sent.offset);
        row.setField("_timestamp", sent.timestamp.atOffset(ZoneOffset.UTC));
        row.setField("_key", ByteBuffer.wrap(bytes(sent.key)));
        GenericRecord header = GenericRecord.create(
                schema.findField("_headers").type().asListType().elementType().asStructType());
        header.setField("key", "n");
        header.setField("value", ByteBuffer.wrap(bytes("h" + sent.index)));
        row.setField("_headers", List.of(header));
        return row;
    }

    private Table createLegacyTable(TableIdentifier id, Schema schema, PartitionSpec spec) {
        SupportsNamespaces namespaces = (SupportsNamespaces) floe.catalog;
        if (!namespaces.namespaceExists(id.namespace())) {
            namespaces.createNamespace(id.namespace(), Map.of());
        }
        return floe.catalog
                .buildTable(id, schema)
                .withPartitionSpec(spec)
                .withProperties(TableCatalog.TABLE_PROPERTIES)
                .withProperty("floe.topic", TOPIC)
                .withProperty(TableProperties.PARQUET_COMPRESSION, "snappy")
                .create();
    }

    /** Appends {@code rows} as the job did (one file per table partition) with {@code mark}; returns the files' locations. */
    private static Set<String> append(Table table, List<GenericRecord> rows, Watermark mark) throws IOException {
        FanoutDataWriter<Record> writer = new FanoutDataWriter<>(
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .dataSchema(table.schema())
                        .build(),
                OutputFileFactory.builderFor(table, 0, 1)
                        .format(FileFormat.PARQUET)
                        .build(),
                table.io(),
                1 << 20);
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        for (GenericRecord row : rows) {
            key.partition(wrapper.wrap(row));
            writer.write(row, table.spec(), table.spec().isUnpartitioned() ? null : key);
        }
        writer.close();
        AppendFiles append = table.newAppend();
        Set<String> locations = new HashSet<>();
        writer.result().dataFiles().forEach(file -> {
            append.appendFile(file);
            locations.add(file.location());
        });
        append.set(Watermark.SUMMARY_PROPERTY, mark.toJson());
        append.commit();
        return locations;
    }

    private static String text(ByteBuffer buffer) {
        return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
