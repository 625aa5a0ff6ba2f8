package io.floe.benchmarks.e2e;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/** Waits until a system answers DescribeCluster (or Metadata) with at least one node, within a total timeout. */
final class Readiness {

    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration PAUSE_AFTER_FAST_FAILURE = Duration.ofMillis(200);

    private Readiness() {}

    static void await(String label, String bootstrapServers, ChildProcess process, Duration timeout)
            throws InterruptedException {
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        String lastError = "no attempt";
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG,
                "bench-readiness"))) {
            while (System.nanoTime() < deadlineNs) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(
                            label + " exited while starting. Log tail:\n" + process.logTail(40));
                }
                long attemptStartNs = System.nanoTime();
                int attemptMs = (int) Math.max(
                        100,
                        Math.min(
                                ATTEMPT_TIMEOUT.toMillis(),
                                TimeUnit.NANOSECONDS.toMillis(deadlineNs - attemptStartNs)));
                try {
                    if (!admin.describeCluster(new DescribeClusterOptions().timeoutMs(attemptMs))
                            .nodes()
                            .get()
                            .isEmpty()) {
                        return;
                    }
                    lastError = "cluster has no nodes yet";
                } catch (ExecutionException e) {
                    lastError = e.getCause().toString();
                }
                // Connection refused fails at once; do not spin on it.
                long spentMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - attemptStartNs);
                if (spentMs < PAUSE_AFTER_FAST_FAILURE.toMillis()) {
                    Thread.sleep(PAUSE_AFTER_FAST_FAILURE.toMillis() - spentMs);
                }
            }
        }
        throw new IllegalStateException(label + " at " + bootstrapServers + " not ready after " + timeout.toSeconds()
                + " s; last error: " + lastError + ". Log tail:\n" + process.logTail(40));
    }
}
