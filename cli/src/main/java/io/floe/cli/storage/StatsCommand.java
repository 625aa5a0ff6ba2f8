package io.floe.cli.storage;

import io.floe.cli.agent.Backends;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.StorageStats;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code floe storage stats}: opens the metadata store, prints its {@link StorageStats} and closes
 * it. An embedded SQLite store is locked by the agent using it, so this works on it only while no
 * agent runs; the message for a locked store says so and where the running agent shows the figures.
 */
@Command(
        name = "stats",
        description = "Prints what the metadata store references: committed objects and their bytes, uploads"
                + " registered but not committed, objects waiting for deletion.")
final class StatsCommand implements Callable<Integer> {

    /** How {@code SqlMetadataStore} says another process holds the embedded store's lock. */
    private static final String LOCKED = "is locked";

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--metadata",
            paramLabel = "URL",
            defaultValue = "sqlite:floe-data/metadata.db",
            description = "Metadata store: sqlite:PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE."
                    + " Default: ${DEFAULT-VALUE} (the agent's default).")
    private String metadataUrl;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        StorageStats stats;
        String store;
        try (MetadataStore metadata = Backends.existingMetadataStore(
                metadataUrl, Concurrency.threads().clock())) {
            store = metadata.describe();
            stats = metadata.storageStats();
        } catch (IllegalArgumentException e) {
            err.println("floe storage stats: invalid value for --metadata: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        } catch (MetadataStoreException e) {
            err.println("floe storage stats: " + e.getMessage()
                    + (e.getMessage().contains(LOCKED)
                            ? ". Stop that agent first, or read the same figures from its /metrics endpoint"
                                    + " (floe_storage_objects, floe_storage_bytes, ...)"
                            : ""));
            return CommandLine.ExitCode.SOFTWARE;
        }
        out.println("Metadata store: " + Backends.redact(store));
        out.println("Committed objects: " + stats.committedObjects());
        out.println("Committed bytes: " + stats.committedBytes() + bytes(stats.committedBytes()));
        out.println("Registered uploads, not committed: " + stats.registeredObjects());
        out.println("Objects pending deletion: " + stats.pendingDeletions());
        return CommandLine.ExitCode.OK;
    }

    /** " (1.5 MiB)" for sizes of a KiB and more. */
    static String bytes(long bytes) {
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit < 0 ? "" : String.format(Locale.ROOT, " (%.1f %s)", value, units[unit]);
    }
}
