package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.floe.tableflow.rest.ReadOnlyRestCatalog;
import io.floe.tableflow.rest.RestCatalogConfig;
import io.floe.tableflow.rest.RestCatalogHandler;
import io.floe.tableflow.rows.Rows;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance test of the REST catalog: records produced with kafka-clients to a Tableflow topic
 * are read back, through the REST catalog over HTTP, by Iceberg's own {@link RESTCatalog} client
 * reading the files with its own FileIO, and equal the records produced.
 */
@Timeout(180)
class RestCatalogIT {

    private static final String SCHEMA = """
            {"type": "object",
             "properties": {"id": {"type": "integer"}, "customer": {"type": "string"}},
             "required": ["id", "customer"]}""";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        floe = new TableflowHarness(dataDir).startTableflow(dataDir.resolve("spool"));
        RestCatalogHandler handler = new RestCatalogHandler("/iceberg");
        handler.serve(new ReadOnlyRestCatalog(floe.catalog, RestCatalogConfig.DEFAULTS));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/iceberg", handler);
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop(0);
        floe.close();
    }

    @Test
    void aTopicsTableReadsThroughTheRestCatalogAsTheRecordsProduced() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1)
                            .configs(Map.of(
                                    "floe.tableflow.enabled",
                                    "true",
                                    "floe.tableflow.format",
                                    "json",
                                    "floe.tableflow.schema",
                                    SCHEMA,
                                    "floe.tableflow.commit.interval.ms",
                                    "200"))))
                    .all()
                    .get();
        }
        Set<String> produced = new HashSet<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                String value = "{\"id\": " + i + ", \"customer\": \"c" + (i % 7) + "\"}";
                sends.add(producer.send(new ProducerRecord<>("orders", i % 2, bytes("k" + i), bytes(value))));
            }
            for (int i = 0; i < sends.size(); i++) {
                RecordMetadata sent = sends.get(i).get();
                produced.add(row(sent.partition(), sent.offset(), "k" + i, i, "c" + (i % 7)));
            }
        }
        floe.awaitCaughtUp("orders", Duration.ofSeconds(60));

        try (RESTCatalog client = new RESTCatalog()) {
            client.initialize(
                    "floe",
                    Map.of(
                            CatalogProperties.URI,
                            "http://127.0.0.1:" + server.getAddress().getPort() + "/iceberg",
                            CatalogProperties.FILE_IO_IMPL,
                            "org.apache.iceberg.hadoop.HadoopFileIO"));

            assertThat(client.listNamespaces()).contains(Namespace.of("floe"));
            assertThat(client.listTables(Namespace.of("floe"))).containsExactly(TableIdentifier.of("floe", "orders"));
            Table table = client.loadTable(TableIdentifier.of("floe", "orders"));
            assertThat(table.properties()).containsEntry("floe.topic", "orders");

            Set<String> read = new HashSet<>();
            List<Record> rows = TableflowHarness.rows(table);
            for (Record r : rows) {
                read.add(row(
                        (Integer) r.getField(Rows.PARTITION),
                        (Long) r.getField(Rows.OFFSET),
                        StandardCharsets.UTF_8
                                .decode((ByteBuffer) r.getField(Rows.KEY))
                                .toString(),
                        (Long) r.getField("id"),
                        (String) r.getField("customer")));
            }
            assertThat(rows).hasSize(500);
            assertThat(read).isEqualTo(produced);
        }
    }

    private static String row(int partition, long offset, String key, long id, String customer) {
        return partition + "/" + offset + " " + key + " " + id + " " + customer;
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
