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
 * @param offsetsPerTransaction the most source offsets one transaction covers: an append table's range,
 *     or a step of an upsert table's initial snapshot (and the most deletes a step of its end sends); an
 *     upsert table's other transactions cover one table commit, which a round bounds
 * @param transactionsPerTurn the most transactions one table publishes after a round before the
 *     Tableflow thread moves on (it comes back at once while more are waiting)
 * @param transactionTimeout {@code transaction.timeout.ms} of the producers
 * @param requestTimeout how long a producer or admin call may block
 * @param keepAlive how long a caught-up stream goes without a transaction: then it commits its progress
 *     again in one that publishes nothing, so neither its group offsets nor its transactional id age
 *     towards their expiry (7 days each by default) while the stream lives
 * @param holdTimeout how long a stream may stay behind without publishing before its retention hold on
 *     the source topic is given up ({@link StreamHold})
 */
public record ChangeStreamConfig(
        Supplier<Optional<String>> bootstrap,
        String clusterName,
        String version,
        long offsetsPerTransaction,
        int transactionsPerTurn,
        Duration transactionTimeout,
        Duration requestTimeout,
        Duration keepAlive,
        Duration holdTimeout) {

    public static final long DEFAULT_OFFSETS_PER_TRANSACTION = 100_000;
    public static final int DEFAULT_TRANSACTIONS_PER_TURN = 8;
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(15);
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofDays(1);
    public static final Duration DEFAULT_HOLD_TIMEOUT = Duration.ofDays(1);

    public ChangeStreamConfig {
        Objects.requireNonNull(bootstrap, "bootstrap");
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(version, "version");
        if (offsetsPerTransaction < 1 || transactionsPerTurn < 1) {
            throw new IllegalArgumentException("change stream limits must be positive: offsetsPerTransaction="
                    + offsetsPerTransaction + " transactionsPerTurn=" + transactionsPerTurn);
        }
        for (Duration duration : new Duration[] {transactionTimeout, requestTimeout, keepAlive, holdTimeout}) {
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("change stream durations must be positive: transactionTimeout="
                        + transactionTimeout + " requestTimeout=" + requestTimeout + " keepAlive=" + keepAlive
                        + " holdTimeout=" + holdTimeout);
            }
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
                DEFAULT_REQUEST_TIMEOUT,
                DEFAULT_KEEP_ALIVE,
                DEFAULT_HOLD_TIMEOUT);
    }

    public ChangeStreamConfig withOffsetsPerTransaction(long offsets) {
        return new ChangeStreamConfig(
                bootstrap,
                clusterName,
                version,
                offsets,
                transactionsPerTurn,
                transactionTimeout,
                requestTimeout,
                keepAlive,
                holdTimeout);
    }

    public ChangeStreamConfig withHoldTimeout(Duration timeout) {
        return new ChangeStreamConfig(
                bootstrap,
                clusterName,
                version,
                offsetsPerTransaction,
                transactionsPerTurn,
                transactionTimeout,
                requestTimeout,
                keepAlive,
                timeout);
    }

    public ChangeStreamConfig withBootstrap(Supplier<Optional<String>> listener) {
        return new ChangeStreamConfig(
                listener,
                clusterName,
                version,
                offsetsPerTransaction,
                transactionsPerTurn,
                transactionTimeout,
                requestTimeout,
                keepAlive,
                holdTimeout);
    }
}
