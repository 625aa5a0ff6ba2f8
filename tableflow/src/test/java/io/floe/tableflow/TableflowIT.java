package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.tableflow.rows.Rows;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topics produced with real kafka-clients become Iceberg tables holding exactly their records, read
 * back with Iceberg's own generic reader.
 */
@Timeout(180)
class TableflowIT {

    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final String ORDER_SCHEMA = """
            {"type": "object",
             "properties": {
               "id": {"type": "integer"},
               "customer": {"type": "string"},
               "amount": {"type": ["number", "null"]},
               "tags": {"type": "array", "items": {"type": "string"}},
               "placed": {"type": "string", "format": "date-time"},
               "address": {"type": "object", "properties": {"city": {"type": "string"}}}
             },
             "required": ["id", "customer"]}""";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private Admin admin;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir).startTableflow(dataDir.resolve("spool"));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()));
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        floe.close();
    }

    @Test
    void jsonTopicBecomesATableWithEveryRecordOnceAndBadRecordsAsDeadLetters() throws Exception {
        createTopic(
                "orders",
                3,
                Map.of(
                        "floe.tableflow.enabled",
                        "true",
                        "floe.tableflow.format",
                        "json",
                        "floe.tableflow.schema",
                        ORDER_SCHEMA,
                        "floe.tableflow.commit.interval.ms",
                        "200"));
        Set<String> bad = new HashSet<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 3000; i++) {
                String json = "{\"id\": " + i + ", \"customer\": \"c" + (i % 17) + "\", \"amount\": " + (i * 1.5)
                        + ", \"tags\": [\"a\", \"t" + i + "\"], \"placed\": \"2026-11-30T10:00:00Z\""
                        + ", \"address\": {\"city\": \"city" + i + "\"}}";
                ProducerRecord<byte[], byte[]> record =
                        new ProducerRecord<>("orders", i % 3, bytes("k" + i), bytes(json));
                record.headers().add("source", bytes("test"));
                producer.send(record);
                if (i % 500 == 0) {
                    String broken = i % 1000 == 0 ? "not json " + i : "{\"customer\": \"missing id " + i + "\"}";
                    bad.add(broken);
                    producer.send(new ProducerRecord<>("orders", i % 3, bytes("bad" + i), bytes(broken)));
                }
            }
        }
        Table table = floe.awaitCaughtUp("orders", CATCH_UP);

        List<Record> rows = TableflowHarness.rows(table);
        assertThat(rows).hasSize(3000);
        Set<String> positions = new HashSet<>();
        Map<Long, Record> byId = new HashMap<>();
        for (Record row : rows) {
            assertThat(positions.add(row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET)))
                    .isTrue();
            byId.put((Long) row.getField("id"), row);
        }
        assertThat(byId).hasSize(3000);
        Record row = byId.get(1234L);
        assertThat(row.getField(Rows.PARTITION)).isEqualTo(1234 % 3);
        assertThat(text((ByteBuffer) row.getField(Rows.KEY))).isEqualTo("k1234");
        assertThat(row.getField("customer")).isEqualTo("c" + (1234 % 17));
        assertThat(row.getField("amount")).isEqualTo(1234 * 1.5);
        assertThat(row.getField("tags")).isEqualTo(List.of("a", "t1234"));
        assertThat(row.getField("placed")).isEqualTo(OffsetDateTime.of(2026, 11, 30, 10, 0, 0, 0, ZoneOffset.UTC));
        assertThat(((Record) row.getField("address")).getField("city")).isEqualTo("city1234");
        @SuppressWarnings("unchecked")
        List<Record> headers = (List<Record>) row.getField(Rows.HEADERS);
        assertThat(headers).singleElement().satisfies(header -> {
            assertThat(header.getField("key")).isEqualTo("source");
            assertThat(text((ByteBuffer) header.getField("value"))).isEqualTo("test");
        });

        Table deadLetters = floe.tables.loadDeadLetters("orders").orElseThrow();
        List<Record> dead = TableflowHarness.rows(deadLetters);
        assertThat(dead)
                .extracting(r -> text((ByteBuffer) r.getField(Rows.DEAD_VALUE)))
                .containsExactlyInAnyOrderElementsOf(bad);
        assertThat(dead)
                .extracting(r -> (String) r.getField(Rows.DEAD_REASON))
                .anySatisfy(reason -> assertThat(reason).contains("not valid JSON"))
                .anySatisfy(reason -> assertThat(reason).contains("required field id is missing"));
        // Every offset of the topic is in exactly one of the two tables.
        long total = 0;
        for (int p = 0; p < 3; p++) {
            total += floe.metadata
                    .offsets(new io.floe.core.log.TopicPartition("orders", p))
                    .highWatermark();
        }
        assertThat(rows.size() + dead.size()).isEqualTo(total);
    }

    @Test
    void avroTopicDecodesTheDeclaredSchema() throws Exception {
        String avroSchema = """
                {"type": "record", "name": "Reading", "fields": [
                  {"name": "sensor", "type": "string"},
                  {"name": "value", "type": "double"},
                  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
                  {"name": "note", "type": ["null", "string"], "default": null},
                  {"name": "levels", "type": {"type": "array", "items": "int"}}
                ]}""";
        createTopic(
                "readings",
                2,
                Map.of(
                        "floe.tableflow.enabled",
                        "true",
                        "floe.tableflow.format",
                        "avro",
                        "floe.tableflow.schema",
                        avroSchema,
                        "floe.tableflow.commit.interval.ms",
                        "200",
                        "floe.tableflow.partitioning",
                        "day"));
        Schema schema = new Schema.Parser().parse(avroSchema);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 1000; i++) {
                GenericData.Record reading = new GenericData.Record(schema);
                reading.put("sensor", "s" + i);
                reading.put("value", i / 4.0);
                reading.put("at", 1_764_000_000_000L + i * 3_600_000L);
                reading.put("note", i % 2 == 0 ? null : "odd");
                reading.put("levels", List.of(i, i + 1));
                producer.send(new ProducerRecord<>("readings", i % 2, null, avro(schema, reading)));
            }
            producer.send(new ProducerRecord<>("readings", 0, null, bytes("definitely not avro, far too long")));
        }
        Table table = floe.awaitCaughtUp("readings", CATCH_UP);

        List<Record> rows = TableflowHarness.rows(table);
        assertThat(rows).hasSize(1000);
        Map<String, Record> bySensor = new HashMap<>();
        rows.forEach(row -> bySensor.put((String) row.getField("sensor"), row));
        Record row = bySensor.get("s7");
        assertThat(row.getField("value")).isEqualTo(7 / 4.0);
        assertThat(row.getField("at"))
                .isEqualTo(java.time.Instant.ofEpochMilli(1_764_000_000_000L + 7 * 3_600_000L)
                        .atOffset(ZoneOffset.UTC));
        assertThat(row.getField("note")).isEqualTo("odd");
        assertThat(bySensor.get("s8").getField("note")).isNull();
        assertThat(row.getField("levels")).isEqualTo(List.of(7, 8));
        assertThat(table.spec().isPartitioned()).isTrue();
        assertThat(TableflowHarness.rows(floe.tables.loadDeadLetters("readings").orElseThrow()))
                .hasSize(1);
    }

    @Test
    void rawTopicKeepsValueBytesAndTheSchemaGrowsWhenTheJsonSchemaGainsAField() throws Exception {
        createTopic("events", 1, Map.of("floe.tableflow.enabled", "true", "floe.tableflow.commit.interval.ms", "200"));
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>("events", null, i % 10 == 0 ? null : bytes("v" + i)));
            }
        }
        Table table = floe.awaitCaughtUp("events", CATCH_UP);
        List<Record> rows = TableflowHarness.rows(table);
        assertThat(rows).hasSize(100);
        assertThat(rows).filteredOn(row -> row.getField("value") == null).hasSize(10);
        assertThat(rows)
                .extracting(row -> row.getField("value") == null ? null : text((ByteBuffer) row.getField("value")))
                .contains("v1", "v99");

        createTopic(
                "people",
                1,
                Map.of(
                        "floe.tableflow.enabled",
                        "true",
                        "floe.tableflow.format",
                        "json",
                        "floe.tableflow.schema",
                        "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}",
                        "floe.tableflow.commit.interval.ms",
                        "200"));
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>("people", null, bytes("{\"name\": \"ada\", \"age\": 36}")))
                    .get();
        }
        floe.awaitCaughtUp("people", CATCH_UP);
        alter(
                "people",
                "floe.tableflow.schema",
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                        + "\"age\":{\"type\":\"integer\"}}}");
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>("people", null, bytes("{\"name\": \"grace\", \"age\": 85}")))
                    .get();
        }
        Table people = floe.awaitCaughtUp("people", CATCH_UP);
        Map<Object, Object> ages = new HashMap<>();
        TableflowHarness.rows(people).forEach(row -> ages.put(row.getField("name"), row.getField("age")));
        assertThat(ages).containsEntry("grace", 85L).containsEntry("ada", null).hasSize(2);
    }

    @Test
    void aSchemaChangeTheTableCannotTakeIsRefusedWithInvalidConfigAndTheReason() throws Exception {
        createTopic(
                "typed",
                1,
                Map.of(
                        "floe.tableflow.enabled",
                        "true",
                        "floe.tableflow.format",
                        "json",
                        "floe.tableflow.schema",
                        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}",
                        "floe.tableflow.commit.interval.ms",
                        "200"));
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>("typed", null, bytes("{\"n\": 1}")))
                    .get();
        }
        floe.awaitCaughtUp("typed", CATCH_UP);
        assertThatThrownBy(() -> alter(
                        "typed",
                        "floe.tableflow.schema",
                        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}}}"))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("does not fit its table")
                .hasMessageContaining("n: long -> string");
        assertThat(floe.metadata.topic("typed").orElseThrow().configs().get("floe.tableflow.schema"))
                .contains("integer");

        // The table outlives its topic: a topic created again under the name must fit it too.
        admin.deleteTopics(List.of("typed")).all().get();
        assertThatThrownBy(() -> createTopic(
                        "typed",
                        1,
                        Map.of(
                                "floe.tableflow.enabled",
                                "true",
                                "floe.tableflow.format",
                                "json",
                                "floe.tableflow.schema",
                                "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}}}")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("n: long -> string");
    }

    /**
     * The ways the README names: a topic created without Tableflow (as {@code kafka-topics.sh --create}
     * must, since it refuses unknown config names itself), then turned on as {@code kafka-configs.sh
     * --alter --add-config} does it (DescribeConfigs, then IncrementalAlterConfigs), and off again with
     * {@code --delete-config}, which needs DescribeConfigs to list the override it deletes.
     */
    @Test
    void tableflowIsTurnedOnAndOffAsKafkaConfigsDoesIt() throws Exception {
        createTopic("later", 1, Map.of());
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "later");
        admin.describeConfigs(List.of(resource)).all().get();
        admin.incrementalAlterConfigs(Map.of(
                        resource,
                        List.of(
                                new AlterConfigOp(
                                        new ConfigEntry("floe.tableflow.enabled", "true"), AlterConfigOp.OpType.SET),
                                new AlterConfigOp(
                                        new ConfigEntry("floe.tableflow.commit.interval.ms", "200"),
                                        AlterConfigOp.OpType.SET))))
                .all()
                .get();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>("later", null, bytes("v"))).get();
        }
        assertThat(TableflowHarness.rows(floe.awaitCaughtUp("later", CATCH_UP))).hasSize(1);

        assertThat(admin.describeConfigs(List.of(resource))
                        .all()
                        .get()
                        .get(resource)
                        .get("floe.tableflow.enabled"))
                .isNotNull()
                .satisfies(entry -> assertThat(entry.value()).isEqualTo("true"))
                .satisfies(
                        entry -> assertThat(entry.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG));
        admin.incrementalAlterConfigs(Map.of(
                        resource,
                        List.of(new AlterConfigOp(
                                new ConfigEntry("floe.tableflow.enabled", ""), AlterConfigOp.OpType.DELETE))))
                .all()
                .get();
        assertThat(floe.metadata.topic("later").orElseThrow().configs())
                .doesNotContainKey("floe.tableflow.enabled")
                .containsEntry("floe.tableflow.commit.interval.ms", "200");
    }

    @Test
    void badTableflowConfigsAreRejectedWithInvalidConfig() {
        assertThatThrownBy(() -> createTopic(
                        "broken",
                        1,
                        Map.of(
                                "floe.tableflow.enabled",
                                "true",
                                "floe.tableflow.format",
                                "avro",
                                "floe.tableflow.schema",
                                "{\"type\": \"recordd\"}")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("Avro schema");
        assertThatThrownBy(() -> createTopic("broken2", 1, Map.of("floe.tableflow.enabeld", "true")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("floe.tableflow.enabeld");
        assertThatThrownBy(() -> createTopic("broken3", 1, Map.of("floe.tableflow.format", "json")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("floe.tableflow.schema is required");
    }

    private void createTopic(String name, int partitions, Map<String, String> configs)
            throws ExecutionException, InterruptedException {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                .all()
                .get();
    }

    private void alter(String topic, String name, String value) throws ExecutionException, InterruptedException {
        admin.incrementalAlterConfigs(Map.of(
                        new ConfigResource(ConfigResource.Type.TOPIC, topic),
                        List.of(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET))))
                .all()
                .get();
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static byte[] avro(Schema schema, GenericData.Record record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericData.Record>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ByteBuffer buffer) {
        return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
    }
}
