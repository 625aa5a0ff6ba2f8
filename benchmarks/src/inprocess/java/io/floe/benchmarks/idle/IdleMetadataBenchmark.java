package io.floe.benchmarks.idle;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.benchmarks.cluster.PostgresServer;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.maintenance.Maintenance;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.MaintenanceMetadata;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point: what an idle agent asks of a shared PostgreSQL, with nothing stored and with many transactional ids
 * and groups stored. For each case it starts a real PostgreSQL (non-durable, for speed), opens a fresh database,
 * seeds it, starts one agent with its maintenance jobs (as {@code floe agent} does, no clients) on it, lets it
 * warm up, then measures over a window: SQL statements per second ({@code pg_stat_statements}), transactions per
 * second and rows read by scans per second ({@code pg_stat_database}), and store operations per second (a
 * counting decorator on the store). Prints one Markdown table row per case, headed by {@code --label}, and
 * appends them to {@code --out}. {@code benchmarks/run-idle-metadata.sh} runs it for two builds side by side.
 */
public final class IdleMetadataBenchmark {

    private static final Logger LOGGER = LoggerFactory.getLogger(IdleMetadataBenchmark.class);

    static final String USAGE = "usage: IdleMetadataBenchmark --label NAME [--ids N] [--groups N] [--warmup-seconds S]"
            + " [--seconds S] [--offsets-check-seconds S] [--out FILE]";

    /** The benchmark's options. */
    record Options(
            String label, int ids, int groups, Duration warmUp, Duration window, Duration offsetsCheck, Path out) {

        static Options parse(String[] args) {
            Map<String, String> given = new HashMap<>();
            for (int i = 0; i < args.length; i += 2) {
                if (!args[i].startsWith("--") || i + 1 == args.length) {
                    throw new IllegalArgumentException(USAGE);
                }
                given.put(args[i].substring(2), args[i + 1]);
            }
            if (!given.containsKey("label")) {
                throw new IllegalArgumentException(USAGE);
            }
            return new Options(
                    given.get("label"),
                    Integer.parseInt(given.getOrDefault("ids", "100000")),
                    Integer.parseInt(given.getOrDefault("groups", "10000")),
                    Duration.ofSeconds(Long.parseLong(given.getOrDefault("warmup-seconds", "20"))),
                    Duration.ofSeconds(Long.parseLong(given.getOrDefault("seconds", "120"))),
                    Duration.ofSeconds(Long.parseLong(given.getOrDefault("offsets-check-seconds", "60"))),
                    given.containsKey("out") ? Path.of(given.get("out")) : null);
        }
    }

    /** One case's readings over its window, per second. */
    record Rates(
            String label,
            int ids,
            int groups,
            double statements,
            double transactions,
            double rowsRead,
            double storeOperations,
            List<String> topStatements) {

        String row() {
            return String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d | %.1f | %.1f | %,.0f | %.1f | %s |",
                    label,
                    ids,
                    groups,
                    statements,
                    transactions,
                    rowsRead,
                    storeOperations,
                    String.join("<br>", topStatements));
        }
    }

    private IdleMetadataBenchmark() {}

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path dir = Files.createTempDirectory("floe-idle-metadata-");
        // Traversable by the unprivileged user PostgreSQL runs as when this runs as root.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<Rates> rates = new ArrayList<>();
        try (PostgresServer postgres = PostgresServer.start(dir.resolve("postgres"), false)) {
            rates.add(measure(postgres, dir, "idle_empty", options, 0, 0));
            rates.add(measure(postgres, dir, "idle_stored", options, options.ids(), options.groups()));
        } finally {
            deleteRecursively(dir);
        }
        List<String> rows = rates.stream().map(Rates::row).toList();
        rows.forEach(System.out::println);
        if (options.out() != null) {
            Files.write(options.out(), rows, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        }
    }

    private static Rates measure(
            PostgresServer postgres, Path dir, String database, Options options, int ids, int groups)
            throws IOException, SQLException, InterruptedException {
        postgres.createDatabase(database);
        Clock clock = Clock.systemUTC();
        try (MetadataStore store = SqlMetadataStore.openPostgres(postgres.agentUrl(database), clock)) {
            store.createTopic(new NewTopic("orders", 6, Map.of()));
            seed(postgres, database, ids, groups, clock.millis());
            postgres.execute(database, "ANALYZE");
            CountingStore counting = new CountingStore(store);
            LocalObjectStore objects = new LocalObjectStore(Files.createDirectories(dir.resolve(database)));
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            try (Agent agent = Agent.start(
                            AgentConfig.defaults()
                                    .withIdentity(1, "idle-bench-" + database)
                                    .withAutoCreateTopics(false),
                            AgentMetadata.of(counting),
                            objects,
                            meters,
                            clock,
                            GroupCoordinatorConfig.defaults()
                                    .withOffsetsRetention(Duration.ofDays(7), options.offsetsCheck()));
                    Maintenance maintenance = Maintenance.start(
                            MaintenanceConfig.DEFAULTS,
                            "idle-bench-" + database,
                            MaintenanceMetadata.of(counting),
                            objects,
                            agent.topics().configs(),
                            clock,
                            meters)) {
                LOGGER.info("warming up case={} ids={} groups={} for={}", database, ids, groups, options.warmUp());
                Thread.sleep(options.warmUp().toMillis());
                Map<String, Long> statementsBefore = postgres.statementCalls(database);
                PostgresServer.TransactionCounts transactionsBefore = postgres.transactions(database);
                long rowsBefore = postgres.rowsRead(database);
                long operationsBefore = counting.total();
                long started = System.nanoTime();
                LOGGER.info("measuring case={} for={}", database, options.window());
                Thread.sleep(options.window().toMillis());
                // PostgreSQL's backends report their statistics within about a second of going idle.
                long operationsAfter = counting.total();
                double seconds = (System.nanoTime() - started) / 1e9;
                Thread.sleep(1_500);
                Map<String, Long> statements = minus(postgres.statementCalls(database), statementsBefore);
                long transactions = postgres.transactions(database).minus(transactionsBefore).commits();
                long rows = postgres.rowsRead(database) - rowsBefore;
                return new Rates(
                        options.label(),
                        ids,
                        groups,
                        statements.values().stream().mapToLong(Long::longValue).sum() / seconds,
                        transactions / seconds,
                        rows / seconds,
                        (operationsAfter - operationsBefore) / seconds,
                        top(statements, seconds));
            }
        }
    }

    /**
     * Rows as the store writes them, inserted in bulk: {@code ids} transactional ids with no open transaction and
     * {@code groups} groups with one committed offset each, all changed just now (none due for expiry).
     */
    private static void seed(PostgresServer postgres, String database, int ids, int groups, long nowMs)
            throws SQLException {
        try (Connection connection = postgres.connect(database);
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO transactions (transactional_id, producer_id, producer_epoch,"
                    + " last_producer_epoch, previous_producer_id, state, timeout_ms, started_at, updated_at)"
                    + " SELECT 'flink-sink-' || g, 1000000000 + g, 3, 2, -1, 'COMPLETE_COMMIT', 60000, -1, " + nowMs
                    + " FROM generate_series(1, " + ids + ") g");
            statement.execute("INSERT INTO group_offsets (group_id, topic_name, partition_index, committed_offset,"
                    + " leader_epoch, metadata, commit_timestamp) SELECT 'group-' || g, 'orders', 0, 42, -1, '', "
                    + nowMs + " FROM generate_series(1, " + groups + ") g");
        }
        LOGGER.info("seeded database={} transactionalIds={} groups={}", database, ids, groups);
    }

    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new HashMap<>();
        after.forEach((query, calls) -> {
            long made = calls - before.getOrDefault(query, 0L);
            if (made > 0) {
                delta.put(query, made);
            }
        });
        return delta;
    }

    /** The three statements run most often, with their rate, shortened. */
    private static List<String> top(Map<String, Long> statements, double seconds) {
        return statements.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .limit(3)
                .map(entry -> String.format(Locale.ROOT, "%.1f/s `%s`", entry.getValue() / seconds,
                        shorten(entry.getKey())))
                .toList();
    }

    private static String shorten(String query) {
        String oneLine = query.replaceAll("\\s+", " ").replace("|", "\\|");
        return oneLine.length() <= 70 ? oneLine : oneLine.substring(0, 67) + "...";
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** Forwards every operation and counts it. */
    private static final class CountingStore extends ForwardingMetadataStore {

        private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();

        CountingStore(MetadataStore store) {
            super(store);
        }

        @Override
        protected <T> T call(MetadataOperation operation, Supplier<T> call) {
            calls.computeIfAbsent(operation.name(), name -> new LongAdder()).increment();
            return call.get();
        }

        long total() {
            return calls.values().stream().mapToLong(LongAdder::sum).sum();
        }
    }
}
