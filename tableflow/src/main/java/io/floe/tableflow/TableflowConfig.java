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
 * @param pollBudget how long one poll starts rounds: a poll that has run this long starts no more, and
 *     the next poll starts with the tables it did not get to, so every table gets its turn
 * @param roundTimeout how long one round keeps its table's lease renewed: a round that runs longer (it
 *     hangs) lets the lease run out, so another agent takes the table and the round commits nothing
 * @param upsertIndexBytes the agent's memory for the key indexes of its upsert tables, shared by them
 *     ({@link io.floe.tableflow.table.KeyIndexBudget}); a table whose index does not fit looks keys up
 */
public record TableflowConfig(
        String namespace,
        Duration pollInterval,
        Duration leaseTtl,
        long maxBytesPerRound,
        Path spoolDirectory,
        Duration stallTimeout,
        Duration pollBudget,
        Duration roundTimeout,
        long upsertIndexBytes) {

    public static final String DEFAULT_NAMESPACE = "floe";
    /** A table whose agent died moves to another within this long. */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);
    /** A table whose rounds fail for this long stops holding retention back. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofHours(1);
    /** A poll starts no round after this long. */
    public static final Duration DEFAULT_POLL_BUDGET = Duration.ofSeconds(5);
    /** A round that runs longer than this lets its lease run out. */
    public static final Duration DEFAULT_ROUND_TIMEOUT = Duration.ofMinutes(10);
    /** About 1.6 million keys of 16 bytes (160 bytes a key); a quarter of a 1 GiB heap. */
    public static final long DEFAULT_UPSERT_INDEX_BYTES = 256L << 20;

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
        if (pollBudget.isNegative() || pollBudget.isZero()) {
            throw new IllegalArgumentException("tableflow poll budget must be positive, not " + pollBudget);
        }
        if (roundTimeout.compareTo(leaseTtl) < 0) {
            throw new IllegalArgumentException(
                    "tableflow round timeout " + roundTimeout + " must be at least the lease ttl " + leaseTtl);
        }
        if (maxBytesPerRound < 1) {
            throw new IllegalArgumentException("tableflow max bytes per round must be positive");
        }
        if (upsertIndexBytes < 0) {
            throw new IllegalArgumentException(
                    "tableflow upsert index bytes " + upsertIndexBytes + " must not be negative");
        }
    }

    public static TableflowConfig defaults(Path spoolDirectory) {
        return new TableflowConfig(
                DEFAULT_NAMESPACE,
                Duration.ofSeconds(1),
                DEFAULT_LEASE_TTL,
                256L << 20,
                spoolDirectory,
                DEFAULT_STALL_TIMEOUT,
                DEFAULT_POLL_BUDGET,
                DEFAULT_ROUND_TIMEOUT,
                DEFAULT_UPSERT_INDEX_BYTES);
    }

    public TableflowConfig withPollInterval(Duration interval) {
        return new TableflowConfig(
                namespace,
                interval,
                leaseTtl,
                maxBytesPerRound,
                spoolDirectory,
                stallTimeout,
                pollBudget,
                roundTimeout,
                upsertIndexBytes);
    }

    /** With lease ttl {@code ttl}; the round timeout is raised to it when it was shorter. */
    public TableflowConfig withLeaseTtl(Duration ttl) {
        return new TableflowConfig(
                namespace,
                pollInterval,
                ttl,
                maxBytesPerRound,
                spoolDirectory,
                stallTimeout,
                pollBudget,
                roundTimeout.compareTo(ttl) < 0 ? ttl : roundTimeout,
                upsertIndexBytes);
    }

    public TableflowConfig withMaxBytesPerRound(long bytes) {
        return new TableflowConfig(
                namespace,
                pollInterval,
                leaseTtl,
                bytes,
                spoolDirectory,
                stallTimeout,
                pollBudget,
                roundTimeout,
                upsertIndexBytes);
    }

    public TableflowConfig withStallTimeout(Duration timeout) {
        return new TableflowConfig(
                namespace,
                pollInterval,
                leaseTtl,
                maxBytesPerRound,
                spoolDirectory,
                timeout,
                pollBudget,
                roundTimeout,
                upsertIndexBytes);
    }

    /** With the poll budget and the round timeout given. */
    public TableflowConfig withRoundLimits(Duration budget, Duration timeout) {
        return new TableflowConfig(
                namespace,
                pollInterval,
                leaseTtl,
                maxBytesPerRound,
                spoolDirectory,
                stallTimeout,
                budget,
                timeout,
                upsertIndexBytes);
    }

    public TableflowConfig withUpsertIndexBytes(long bytes) {
        return new TableflowConfig(
                namespace,
                pollInterval,
                leaseTtl,
                maxBytesPerRound,
                spoolDirectory,
                stallTimeout,
                pollBudget,
                roundTimeout,
                bytes);
    }
}
