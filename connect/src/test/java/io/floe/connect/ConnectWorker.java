package io.floe.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A Kafka Connect worker in distributed mode, as {@code connect-distributed.sh worker.properties}
 * runs it: {@code ConnectDistributed} in a JVM of its own on this test's class path (the plugins are
 * on it, found through their service files), its config, offset and status topics on the cluster it
 * is pointed at. Connectors are created and watched through its REST API, as users do.
 */
final class ConnectWorker implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final ChildProcess process;
    private final URI rest;
    private final HttpClient http = HttpClient.newHttpClient();

    private ConnectWorker(ChildProcess process, URI rest) {
        this.process = process;
        this.rest = rest;
    }

    /** Writes {@code dir/worker.properties} for {@code bootstrap} and starts the worker. */
    static ConnectWorker start(String bootstrap, String groupId, Path dir) throws IOException {
        int port = Ports.free();
        Properties worker = new Properties();
        worker.put("bootstrap.servers", bootstrap);
        worker.put("group.id", groupId);
        worker.put("listeners", "http://127.0.0.1:" + port);
        worker.put("rest.advertised.host.name", "127.0.0.1");
        worker.put("config.storage.topic", groupId + "-configs");
        worker.put("offset.storage.topic", groupId + "-offsets");
        worker.put("status.storage.topic", groupId + "-status");
        // One copy each, as the quickstart's connect-distributed.properties says for a small cluster.
        worker.put("config.storage.replication.factor", "1");
        worker.put("offset.storage.replication.factor", "1");
        worker.put("status.storage.replication.factor", "1");
        worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        worker.put("value.converter.schemas.enable", "false");
        worker.put("plugin.discovery", "service_load");
        // Connect calls a sink task's put() when records arrive and at each offset flush, and Iceberg's
        // sink reads its control topic only inside put() (apache/iceberg#17811): at the default 60 s an
        // idle task's control consumer cannot even finish joining its group within the 45 s session
        // timeout, so no commit round completes once the topic goes quiet. Kafka behaves the same.
        worker.put("offset.flush.interval.ms", "1000");
        // A restarted worker gets the dead one's connector and tasks once its session (10 s) ends, not
        // after Connect's default 5 min wait for it to come back; the tasks' consumers likewise leave
        // their group 10 s after a kill rather than 45 s.
        worker.put("scheduled.rebalance.max.delay.ms", "0");
        worker.put("consumer.session.timeout.ms", "10000");
        Path properties = dir.resolve("worker.properties");
        try (OutputStream out = Files.newOutputStream(properties)) {
            worker.store(out, "Kafka Connect worker against Floe");
        }
        ChildProcess process = ChildProcess.java(
                "the Connect worker",
                List.of(
                        "-Xmx512m",
                        "-Dlogback.configurationFile=connect-worker-logback.xml",
                        "-cp",
                        System.getProperty("java.class.path"),
                        "org.apache.kafka.connect.cli.ConnectDistributed",
                        properties.toString()),
                dir.resolve("connect-worker.log"));
        return new ConnectWorker(process, URI.create("http://127.0.0.1:" + port));
    }

    /** Waits until the REST API answers: the worker has joined its group and read its config topic. */
    void awaitReady(Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer";
        while (Instant.now().isBefore(deadline)) {
            process.assertAlive();
            try {
                HttpResponse<String> response = send(HttpRequest.newBuilder(rest.resolve("/connectors")).GET());
                if (response.statusCode() == 200) {
                    return;
                }
                last = response.statusCode() + " " + response.body();
            } catch (ConnectException e) {
                last = e.toString(); // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the Connect worker's REST API did not answer in " + timeout + "; last: " + last
                + "\nits log:\n" + process.logTail(60));
    }

    /** Creates (or updates) connector {@code name} with {@code config}, as {@code PUT /connectors/NAME/config}. */
    void putConnector(String name, Map<String, String> config) throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(rest.resolve("/connectors/" + name + "/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))));
        if (response.statusCode() != 200 && response.statusCode() != 201) {
            throw new AssertionError("PUT connector " + name + ": " + response.statusCode() + " " + response.body());
        }
    }

    /** Waits until connector {@code name} and its {@code tasks} tasks run; fails at once when one has failed. */
    void awaitRunning(String name, int tasks, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer";
        while (Instant.now().isBefore(deadline)) {
            process.assertAlive();
            HttpResponse<String> response =
                    send(HttpRequest.newBuilder(rest.resolve("/connectors/" + name + "/status")).GET());
            last = response.statusCode() + " " + response.body();
            if (response.statusCode() == 200) {
                JsonNode status = JSON.readTree(response.body());
                List<String> states = new ArrayList<>();
                states.add(status.path("connector").path("state").asText());
                status.path("tasks").forEach(task -> states.add(task.path("state").asText()));
                if (states.contains("FAILED")) {
                    throw new AssertionError("connector " + name + " failed: " + status.toPrettyString());
                }
                if (states.size() == tasks + 1 && states.stream().allMatch("RUNNING"::equals)) {
                    return;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("connector " + name + " did not run with " + tasks + " tasks in " + timeout
                + "; last status: " + last + "\nworker log:\n" + process.logTail(60));
    }

    /** Fails, with the end of the worker's log, when the worker has exited. */
    void assertAlive() {
        process.assertAlive();
    }

    String logTail(int lines) {
        return process.logTail(lines);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(REQUEST_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
