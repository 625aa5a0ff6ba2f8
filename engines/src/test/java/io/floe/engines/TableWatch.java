package io.floe.engines;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * One table as the agent's REST catalog shows it (Iceberg's client from Spark's runtime), and the
 * waiting for it to reach a state: polls with a deadline, failing with what it saw last and the end of
 * the agent's log.
 */
final class TableWatch implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AgentProcess agent;
    private final TableIdentifier id;
    private final RESTCatalog catalog = new RESTCatalog();
    private String location;
    private String lastSeen = "nothing yet";

    TableWatch(AgentProcess agent, String topic) {
        this.agent = agent;
        this.id = TableIdentifier.of("floe", topic);
        catalog.setConf(new Configuration());
        catalog.initialize("lifecycle", Map.of(CatalogProperties.URI, agent.catalogUri()));
    }

    Table table() {
        return catalog.loadTable(id);
    }

    /** The table's location, as the REST catalog gives it; its Delta log is in {@code _delta_log/} below. */
    String location() {
        if (location == null) {
            location = table().location();
        }
        return location;
    }

    /** Waits until the table has a snapshot and {@code reached} holds for it; the table as it then is. */
    Table await(String what, Predicate<Table> reached) {
        return await(what, () -> {
            Table table = table();
            if (table.currentSnapshot() != null && reached.test(table)) {
                return Optional.of(table);
            }
            lastSeen = table.currentSnapshot() == null ? "no snapshot"
                    : table.currentSnapshot().operation() + " " + table.currentSnapshot().summary();
            return Optional.empty();
        });
    }

    /** Waits until the table's watermark covers {@code ends} (the next offset per partition). */
    Table awaitWatermark(String what, Map<Integer, Long> ends) {
        return await(what + ": the table's watermark reaches the produced records' " + ends,
                table -> ends.entrySet().stream()
                        .allMatch(end -> watermark(table).getOrDefault(end.getKey(), -1L) >= end.getValue()));
    }

    /**
     * Polls {@code probe} until it answers, at most {@link #TIMEOUT} (a short pause between polls); fails
     * with what it saw last. A probe may say what it saw through {@link #saw}.
     */
    <T> T await(String what, Probe<T> probe) {
        Instant deadline = Instant.now().plus(TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            agent.assertAlive();
            try {
                Optional<T> answer = probe.poll();
                if (answer.isPresent()) {
                    return answer.get();
                }
            } catch (RuntimeException e) {
                lastSeen = e.toString(); // the agent is starting, or the table or its Delta log is not there yet
            } catch (Exception e) {
                throw new AssertionError(what, e);
            }
            pause();
        }
        throw new AssertionError("not reached in " + TIMEOUT + ": " + what + "; last seen: " + lastSeen
                + "\nagent log:\n" + agent.logTail());
    }

    void saw(String state) {
        lastSeen = state;
    }

    /** The next offset per partition of the newest snapshot, from the current back, that carries Floe's watermark. */
    static Map<Integer, Long> watermark(Table table) {
        for (Snapshot snapshot : ancestors(table)) {
            String text = snapshot.summary().get("floe.watermark");
            if (text != null) {
                try {
                    Map<Integer, Long> next = new TreeMap<>();
                    JsonNode offsets = JSON.readTree(text).path("next");
                    offsets.fieldNames().forEachRemaining(p -> next.put(Integer.parseInt(p), offsets.get(p).asLong()));
                    return next;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return Map.of();
    }

    /** The current snapshot and its ancestors, newest first. */
    static List<Snapshot> ancestors(Table table) {
        List<Snapshot> ancestors = new ArrayList<>();
        for (Snapshot snapshot = table.currentSnapshot(); snapshot != null;
                snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
            ancestors.add(snapshot);
        }
        return ancestors;
    }

    static long summary(Snapshot snapshot, String property) {
        return Long.parseLong(snapshot.summary().getOrDefault(property, "0"));
    }

    /** The local paths of the data files and deletion vector files of {@code snapshot}. */
    static Set<Path> files(Table table, Snapshot snapshot) throws IOException {
        Set<Path> files = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                files.add(localPath(task.file().location()));
                task.deletes().forEach(delete -> files.add(localPath(delete.location())));
            }
        }
        return files;
    }

    /** The text of the Delta log's commit files. */
    String deltaLog() throws IOException {
        StringBuilder text = new StringBuilder();
        try (Stream<Path> files = Files.list(localPath(location()).resolve("_delta_log"))) {
            for (Path file : files.sorted().toList()) {
                if (file.toString().endsWith(".json")) {
                    text.append(Files.readString(file, StandardCharsets.UTF_8));
                }
            }
        }
        return text.toString();
    }

    @Override
    public void close() throws IOException {
        catalog.close();
    }

    private static Path localPath(String fileLocation) {
        return Path.of(URI.create(fileLocation.replaceFirst("^file:/+", "file:///")));
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    @FunctionalInterface
    interface Probe<T> {
        Optional<T> poll() throws Exception;
    }
}
