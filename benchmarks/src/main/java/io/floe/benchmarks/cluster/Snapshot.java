package io.floe.benchmarks.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything the benchmark reads at a phase boundary: each agent's metrics, the requests S3Proxy served by
 * operation, PostgreSQL's transaction counts and statement counts, the time and the machine's load average.
 */
record Snapshot(
        long nanos,
        long epochMs,
        double loadAverage,
        List<Exposition> agents,
        S3Server.Requests s3,
        PostgresServer.TransactionCounts transactions,
        Map<String, Long> statements) {

    private static final Path LOADAVG = Path.of("/proc/loadavg");

    static Snapshot take(List<AgentNode> agents, ClusterStores stores) throws IOException, InterruptedException {
        List<Exposition> scrapes = new ArrayList<>();
        for (AgentNode agent : agents) {
            scrapes.add(agent.isAlive() ? agent.scrape() : Exposition.EMPTY);
        }
        return new Snapshot(
                System.nanoTime(),
                System.currentTimeMillis(),
                currentLoadAverage(),
                List.copyOf(scrapes),
                stores.s3().requests(),
                stores.postgres().transactions(),
                stores.postgres().statementCalls());
    }

    /** The 1-minute load average; -1 where /proc is not readable. */
    static double currentLoadAverage() {
        try {
            return Double.parseDouble(Files.readString(LOADAVG).strip().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
