package io.floe.tableflow.changes.stream;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Agent-level settings of the change topics.
 *
 * @param bootstrap the agent's own Kafka listener ({@code host:port}), empty until it listens
 * @param clusterName {@code source.name} of every change: the cluster id
 * @param version {@code source.version}: Floe's version
 * @param offsetsPerTransaction the most source offsets an append table's transaction covers (an upsert
 *     table's transaction covers one table commit, which a round bounds)
 * @param transactionsPerTurn the most transactions one table publishes after a round before the
 *     Tableflow thread moves on (it comes back at once while more are waiting)
 * @param transactionTimeout {@code transaction.timeout.ms} of the producers: an initial snapshot of an
 *     upsert table is one transaction and must end within it
 * @param requestTimeout how long a producer or admin call may block
 */
public record ChangeStreamConfig(
        Supplier<Optional<String>> bootstrap,
        String clusterName,
        String version,
        long offsetsPerTransaction,
        int transactionsPerTurn,
        Duration transactionTimeout,
        Duration requestTimeout) {

    public static final long DEFAULT_OFFSETS_PER_TRANSACTION = 100_000;
    public static final int DEFAULT_TRANSACTIONS_PER_TURN = 8;
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(15);

    public ChangeStreamConfig {
        Objects.requireNonNull(bootstrap, "bootstrap");
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(version, "version");
        if (offsetsPerTransaction < 1 || transactionsPerTurn < 1) {
            throw new IllegalArgumentException("change stream limits must be positive: offsetsPerTransaction="
                    + offsetsPerTransaction + " transactionsPerTurn=" + transactionsPerTurn);
        }
        if (transactionTimeout.isNegative()
                || transactionTimeout.isZero()
                || requestTimeout.isNegative()
                || requestTimeout.isZero()) {
            throw new IllegalArgumentException("change stream timeouts must be positive: transactionTimeout="
                    + transactionTimeout + " requestTimeout=" + requestTimeout);
        }
    }

    /** The defaults, publishing through {@code bootstrap}. */
    public static ChangeStreamConfig defaults(
            Supplier<Optional<String>> bootstrap, String clusterName, String version) {
        return new ChangeStreamConfig(
                bootstrap,
                clusterName,
                version,
                DEFAULT_OFFSETS_PER_TRANSACTION,
                DEFAULT_TRANSACTIONS_PER_TURN,
                DEFAULT_TRANSACTION_TIMEOUT,
                DEFAULT_REQUEST_TIMEOUT);
    }

    public ChangeStreamConfig withOffsetsPerTransaction(long offsets) {
        return new ChangeStreamConfig(
                bootstrap, clusterName, version, offsets, transactionsPerTurn, transactionTimeout, requestTimeout);
    }
}
