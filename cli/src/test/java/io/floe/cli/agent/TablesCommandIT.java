package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code floe tables enable|list|describe|disable} against a whole agent in-process. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TablesCommandIT {

    private static final String JSON_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}";

    @TempDir
    Path dataDir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void enablesListsDescribesAndDisablesATable() throws Exception {
        int port = freePort();
        try (AgentRuntime runtime = AgentRuntime.start(settings(port), Clock.systemUTC())) {
            String bootstrap = "127.0.0.1:" + port;
            String http = "127.0.0.1:" + runtime.httpPort();
            assertThat(floe("topics", "create", "counts", "--partitions", "2", "--bootstrap", bootstrap))
                    .isZero();

            assertThat(floe(
                            "tables",
                            "enable",
                            "counts",
                            "--format",
                            "json",
                            "--schema",
                            JSON_SCHEMA,
                            "--commit-interval-ms",
                            "100",
                            "--delta",
                            "--bootstrap",
                            bootstrap))
                    .as(err.toString())
                    .isZero();
            assertThat(out.toString()).contains("Tableflow enabled for topic 'counts': table floe.counts");

            assertThat(floe(
                            "tables",
                            "enable",
                            "counts",
                            "--format",
                            "avro",
                            "--schema",
                            "{not avro",
                            "--bootstrap",
                            bootstrap))
                    .isEqualTo(1);
            assertThat(err.toString()).contains("floe tables enable:", "not a valid Avro schema");
            // An upsert table is published to Delta too, its deletion vectors shared by the two logs.
            assertThat(floe("topics", "create", "accounts", "--partitions", "1", "--bootstrap", bootstrap))
                    .isZero();
            assertThat(floe(
                            "tables",
                            "enable",
                            "accounts",
                            "--mode",
                            "upsert",
                            "--format",
                            "json",
                            "--schema",
                            JSON_SCHEMA,
                            "--delta",
                            "--bootstrap",
                            bootstrap))
                    .as(err.toString())
                    .isZero();
            assertThat(out.toString()).contains("Tableflow enabled for topic 'accounts': table floe.accounts");
            assertThat(floe("tables", "list", "--bootstrap", bootstrap)).isZero();
            assertThat(out.toString()).contains("floe.accounts");
            assertThat(floe("tables", "disable", "accounts", "--bootstrap", bootstrap))
                    .isZero();
            // An upsert table keyed by id columns of the value: a column the schema lets be missing is refused.
            assertThat(floe("topics", "create", "orders", "--partitions", "1", "--bootstrap", bootstrap))
                    .isZero();
            String orders = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
                    + "\"note\":{\"type\":\"string\"}},\"required\":[\"id\"]}";
            assertThat(enableKeyedByColumn("orders", orders, "note", bootstrap)).isEqualTo(1);
            assertThat(err.toString())
                    .contains("floe.tableflow.upsert.key.columns names note", "a key column must be required");
            assertThat(enableKeyedByColumn("orders", orders, "id", bootstrap))
                    .as(err.toString())
                    .isZero();
            assertThat(floe("tables", "disable", "orders", "--bootstrap", bootstrap))
                    .isZero();
            // Id columns on a compacted topic: refused until the record keys are declared to match the ids.
            assertThat(floe(
                            "topics",
                            "create",
                            "ledger",
                            "--partitions",
                            "1",
                            "--config",
                            "cleanup.policy=compact",
                            "--bootstrap",
                            bootstrap))
                    .isZero();
            assertThat(enableKeyedByColumn("ledger", orders, "id", bootstrap)).isEqualTo(1);
            assertThat(err.toString())
                    .contains(
                            "cleanup.policy=compact keeps only the newest record of each record key",
                            "set floe.tableflow.upsert.key.columns.match.record.key=true if each record key carries"
                                    + " one id");
            assertThat(enableKeyedByColumn("ledger", orders, "id", bootstrap, "--key-columns-match-record-key"))
                    .as(err.toString())
                    .isZero();
            assertThat(floe("tables", "disable", "ledger", "--bootstrap", bootstrap))
                    .isZero();
            // A value field may not take a name that Iceberg or another engine reserves: refused when set.
            assertThat(floe(
                            "tables",
                            "enable",
                            "counts",
                            "--format",
                            "json",
                            "--schema",
                            "{\"type\":\"object\",\"properties\":{\"_file\":{\"type\":\"string\"}}}",
                            "--bootstrap",
                            bootstrap))
                    .isEqualTo(1);
            assertThat(err.toString()).contains("value field _file of the declared schema is a name Iceberg reserves");

            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                    Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                    new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                for (int i = 0; i < 50; i++) {
                    producer.send(new ProducerRecord<>("counts", i % 2, null, bytes("{\"n\": " + i + "}")));
                }
                producer.send(new ProducerRecord<>("counts", 0, null, bytes("{\"m\": 1}")))
                        .get();
            }

            assertThat(floe("tables", "list", "--bootstrap", bootstrap)).isZero();
            assertThat(out.toString()).contains("floe.counts", "json", "100");

            Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
            while (true) {
                int code = floe("tables", "describe", "counts", "--bootstrap", bootstrap, "--http", http);
                if (code == 0 && out.toString().contains("Lag: 0 records")) {
                    break;
                }
                assertThat(Instant.now())
                        .as("table caught up; last output: %s%s", out, err)
                        .isBefore(deadline);
                Thread.sleep(200);
            }
            assertThat(out.toString()).contains("Table: floe.counts", "rows: 50", "Dead letters: 1");

            assertThat(floe("tables", "disable", "counts", "--bootstrap", bootstrap))
                    .isZero();
            assertThat(floe("tables", "list", "--bootstrap", bootstrap)).isZero();
            assertThat(out.toString()).contains("No topic has Tableflow enabled");

            assertThat(floe("tables", "describe", "nothing", "--bootstrap", bootstrap, "--http", http))
                    .isEqualTo(1);
            assertThat(err.toString()).contains("has no table floe.nothing");

            // An HTTP endpoint that is not where the command looks: it says what it could not reach and how
            // to point it at the agent, not Iceberg's "Error occurred while processing GET request".
            String nowhere = "127.0.0.1:" + freePort();
            assertThat(floe("tables", "describe", "counts", "--bootstrap", bootstrap, "--http", nowhere))
                    .isEqualTo(1);
            assertThat(err.toString())
                    .contains(
                            "cannot reach the agent's Iceberg REST catalog at http://" + nowhere + "/iceberg",
                            "--http HOST:PORT")
                    .doesNotContain("Error occurred while processing");
        }
    }

    /** {@code floe tables enable} of an upsert table of JSON values keyed by one column of the value. */
    private int enableKeyedByColumn(String topic, String schema, String keyColumn, String bootstrap, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "tables",
                "enable",
                topic,
                "--mode",
                "upsert",
                "--format",
                "json",
                "--schema",
                schema,
                "--key-columns",
                keyColumn,
                "--bootstrap",
                bootstrap));
        args.addAll(List.of(more));
        return floe(args.toArray(String[]::new));
    }

    private int floe(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out, true));
        floe.setErr(new PrintWriter(err, true));
        return floe.execute(args);
    }

    private AgentSettings settings(int port) {
        CommandLine floe = Floe.commandLine(Map.of());
        List<String> args = new ArrayList<>(List.of(
                "agent",
                "--listen",
                "127.0.0.1:" + port,
                "--http-listen",
                "127.0.0.1:0",
                "--data-dir",
                dataDir.toString(),
                "--flush-interval-ms",
                "5"));
        CommandLine.ParseResult parsed = floe.parseArgs(args.toArray(String[]::new));
        AgentCommand command = parsed.subcommand().commandSpec().commandLine().getCommand();
        return command.settings();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
