package io.floe.tableflow;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Agent-level Tableflow settings (per-topic ones are topic configs: see
 * {@link io.floe.tableflow.config.TableflowConfigs}).
 *
 * @param namespace the Iceberg namespace of the tables ({@code floe}: tables are {@code floe.<topic>})
 * @param pollInterval how often the agent looks for tables that are due
 * @param leaseTtl how long a table job's lease lasts without renewal
 * @param maxBytesPerRound stored bytes one round reads at most before it commits
 * @param spoolDirectory where data files are written before their upload
 * @param stallTimeout how long a table's rounds may keep failing before it counts as stalled: it is
 *     reported (log, {@code floe.tableflow.stalled}, {@code floe tables describe}) and no longer holds
 *     retention back, so the log does not grow without bound behind a table that cannot advance
 */
public record TableflowConfig(
        String namespace,
        Duration pollInterval,
        Duration leaseTtl,
        long maxBytesPerRound,
        Path spoolDirectory,
        Duration stallTimeout) {

    public static final String DEFAULT_NAMESPACE = "floe";
    /** A table whose agent died moves to another within this long. */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);
    /** A table whose rounds fail for this long stops holding retention back. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofHours(1);

    public TableflowConfig {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(spoolDirectory, "spoolDirectory");
        if (!namespace.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("tableflow namespace '" + namespace + "' must be letters, digits and _");
        }
        if (pollInterval.isNegative() || pollInterval.isZero() || leaseTtl.isNegative() || leaseTtl.isZero()) {
            throw new IllegalArgumentException("tableflow poll interval and lease ttl must be positive");
        }
        if (stallTimeout.isNegative() || stallTimeout.isZero()) {
            throw new IllegalArgumentException("tableflow stall timeout must be positive, not " + stallTimeout);
        }
        if (maxBytesPerRound < 1) {
            throw new IllegalArgumentException("tableflow max bytes per round must be positive");
        }
    }

    public static TableflowConfig defaults(Path spoolDirectory) {
        return new TableflowConfig(
                DEFAULT_NAMESPACE,
                Duration.ofSeconds(1),
                DEFAULT_LEASE_TTL,
                256L << 20,
                spoolDirectory,
                DEFAULT_STALL_TIMEOUT);
    }

    public TableflowConfig withPollInterval(Duration interval) {
        return new TableflowConfig(namespace, interval, leaseTtl, maxBytesPerRound, spoolDirectory, stallTimeout);
    }

    public TableflowConfig withLeaseTtl(Duration ttl) {
        return new TableflowConfig(namespace, pollInterval, ttl, maxBytesPerRound, spoolDirectory, stallTimeout);
    }

    public TableflowConfig withMaxBytesPerRound(long bytes) {
        return new TableflowConfig(namespace, pollInterval, leaseTtl, bytes, spoolDirectory, stallTimeout);
    }

    public TableflowConfig withStallTimeout(Duration timeout) {
        return new TableflowConfig(namespace, pollInterval, leaseTtl, maxBytesPerRound, spoolDirectory, timeout);
    }
}
