package io.floe.benchmarks.cluster;

import io.floe.benchmarks.e2e.ChildProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The two stores a cluster of agents shares, each a child process on 127.0.0.1 and a free port: PostgreSQL 17 for
 * metadata ({@link PostgresServer}) and S3Proxy for objects ({@link S3Server}).
 *
 * <p>Also a launcher of its own ({@code benchmarks/run-cluster.sh --stores-only}): starts both, prints the
 * {@code floe agent} options that reach them, and stops them when it is interrupted (Ctrl-C, SIGTERM).
 * Usage: {@code ClusterStores --s3proxy-classpath CP [--dir DIR] [--pg-durable true|false]}.
 */
public final class ClusterStores implements AutoCloseable {

    static final String OBJECTS_PREFIX = "cluster";
    private static final List<String> S3PROXY_JVM = List.of("-Xmx512m", "-XX:+UseG1GC");

    private final PostgresServer postgres;
    private final S3Server s3;

    private ClusterStores(PostgresServer postgres, S3Server s3) {
        this.postgres = postgres;
        this.s3 = s3;
    }

    static ClusterStores start(Path dir, boolean pgDurable, String s3proxyClasspath)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        PostgresServer postgres = PostgresServer.start(dir.resolve("postgres"), pgDurable);
        try {
            return new ClusterStores(postgres, S3Server.start(dir.resolve("s3"), s3proxyClasspath, S3PROXY_JVM));
        } catch (IOException | RuntimeException | InterruptedException e) {
            postgres.close();
            throw e;
        }
    }

    PostgresServer postgres() {
        return postgres;
    }

    S3Server s3() {
        return s3;
    }

    /** The {@code floe agent} options that reach both stores; the S3 secret goes in the environment. */
    List<String> agentArguments() {
        return List.of(
                "--metadata",
                postgres.agentUrl(),
                "--objects",
                s3.objectsUrl(OBJECTS_PREFIX),
                "--s3-endpoint",
                s3.endpoint().toString(),
                "--s3-region",
                "us-east-1",
                "--s3-path-style",
                "true",
                "--s3-access-key-id",
                S3Server.ACCESS_KEY);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            s3.close();
        } finally {
            postgres.close();
        }
    }

    public static void main(String[] args) throws Exception {
        String classpath = null;
        Path dir = null;
        boolean durable = true;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--s3proxy-classpath" -> classpath = args[i + 1];
                case "--dir" -> dir = Path.of(args[i + 1]);
                case "--pg-durable" -> durable = Boolean.parseBoolean(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (classpath == null || args.length % 2 != 0) {
            System.err.println("Usage: ClusterStores --s3proxy-classpath CP [--dir DIR] [--pg-durable true|false]");
            System.exit(2);
        }
        boolean temporary = dir == null;
        Path root = temporary ? Files.createTempDirectory("floe-stores-") : dir;
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        ClusterStores stores = start(root, durable, classpath);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                stores.close();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            ChildProcess.killAll();
                            if (temporary) {
                                ClusterBenchmark.deleteRecursively(root);
                            }
                        },
                        "stop-stores"));
        System.out.println("PostgreSQL " + stores.postgres.maskedUrl() + " (password " + PostgresServer.PASSWORD
                + (durable ? ", durable" : ", fsync off") + ")");
        System.out.println("S3Proxy    " + stores.s3.endpoint() + " bucket " + S3Server.BUCKET + " (key "
                + S3Server.ACCESS_KEY + ", secret " + S3Server.SECRET_KEY + ")");
        System.out.println("data       " + root + (temporary ? " (deleted on exit)" : ""));
        System.out.println("An agent on these stores:");
        System.out.println("  FLOE_S3_SECRET_ACCESS_KEY=" + S3Server.SECRET_KEY + " bin/floe agent --node-id 1 "
                + String.join(" ", stores.agentArguments()));
        System.out.println("Ctrl-C stops both.");
        Thread.currentThread().join();
    }
}
