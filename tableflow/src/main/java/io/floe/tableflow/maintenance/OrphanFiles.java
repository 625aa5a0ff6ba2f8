package io.floe.tableflow.maintenance;

import io.floe.tableflow.delta.DeltaFileReferences;
import io.floe.tableflow.delta.DeltaMirror;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the orphan files of a table: files in its {@code data/} and {@code metadata/} directories
 * that nothing in its metadata references (a round or compaction that crashed or lost its commit before
 * it could clean up, a metadata file whose delete failed) and that are older than the orphan age. The
 * age is what keeps this safe next to writers: a round in flight, here or on a stale agent, has written
 * files it has not committed yet, and they are younger than the age.
 *
 * <p>The reachable set is built from the current metadata: its metadata file and the previous ones it
 * lists, statistics files, and for every snapshot its manifest list, manifests and their live data and
 * delete files. Only the table's own directories are listed (never the table location as a whole,
 * where other formats' logs may live), and a table that moves them elsewhere with
 * {@code write.data.path} or {@code write.metadata.path}, or turns {@code gc.enabled} off, is left
 * alone. A file the table's Delta log ({@link DeltaMirror}) may still read is reachable too
 * ({@link DeltaFileReferences#retainedAt}: the files of its latest version, which may lag behind
 * Iceberg, and those it removed less than {@code delta.deletedFileRetentionDuration} ago, which readers
 * of older Delta versions read), and nothing of the log is ever deleted here; a log that cannot be read
 * skips the run. Locations are compared in one normal form, and if the listing
 * does not contain the current metadata file the forms disagree and nothing is deleted.
 */
final class OrphanFiles {

    private static final Logger LOGGER = LoggerFactory.getLogger(OrphanFiles.class);

    /** Deletes per run at most; the rest wait for the next run. */
    static final int DELETES_MAX = 10_000;

    private OrphanFiles() {}

    /** What a run found: orphans deleted, and whether it had to skip the table (with why). */
    record Outcome(int removed, String skipped) {
        static Outcome skipped(String reason) {
            return new Outcome(0, reason);
        }
    }

    /** Deletes the orphans of {@code table} (as it is loaded) older than {@code minAge} at {@code now}. */
    static Outcome remove(Table table, Duration minAge, Instant now) {
        return remove(table, minAge, now, new DeltaFileReferences.TombstoneCache());
    }

    /** As {@link #remove(Table, Duration, Instant)}, with the table's cache of Delta checkpoint tombstones. */
    static Outcome remove(Table table, Duration minAge, Instant now, DeltaFileReferences.TombstoneCache cache) {
        if (!(table.io() instanceof SupportsPrefixOperations io)) {
            return Outcome.skipped("its FileIO cannot list");
        }
        if (table.properties().containsKey(TableProperties.WRITE_DATA_LOCATION)
                || table.properties().containsKey(TableProperties.WRITE_METADATA_LOCATION)) {
            return Outcome.skipped("its data or metadata lives outside the table location");
        }
        if (!Boolean.parseBoolean(table.properties().getOrDefault(TableProperties.GC_ENABLED, "true"))) {
            return Outcome.skipped(TableProperties.GC_ENABLED + " is false");
        }
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        Set<String> reachable = reachable(table, metadata);
        try {
            DeltaFileReferences.read(table, now, cache)
                    .ifPresent(delta -> delta.retainedAt(now).forEach(path -> reachable.add(normal(path))));
        } catch (RuntimeException e) {
            LOGGER.warn("orphan removal skipped table={}: cannot read its delta log: {}", table.name(), e.toString());
            return Outcome.skipped("its delta log cannot be read");
        }
        String location = trimSlash(table.location());
        long olderThan = now.minus(minAge).toEpochMilli();
        boolean sawCurrentMetadata = false;
        List<String> orphans = new ArrayList<>();
        for (String directory : List.of(location + "/data/", location + "/metadata/")) {
            for (FileInfo file : io.listPrefix(directory)) {
                String normal = normal(file.location());
                sawCurrentMetadata |= normal.equals(normal(metadata.metadataFileLocation()));
                if (!reachable.contains(normal)
                        && file.createdAtMillis() < olderThan
                        && !normal.contains("/" + DeltaMirror.LOG_DIRECTORY + "/")) {
                    orphans.add(file.location());
                }
            }
        }
        if (!sawCurrentMetadata) {
            LOGGER.warn(
                    "orphan removal skipped table={}: the listing of {} lacks the current metadata file {}",
                    table.name(),
                    location,
                    metadata.metadataFileLocation());
            return Outcome.skipped("the listing lacks the current metadata file");
        }
        int removed = 0;
        for (String orphan : orphans.subList(0, Math.min(orphans.size(), DELETES_MAX))) {
            io.deleteFile(orphan);
            removed++;
            LOGGER.debug("orphan file removed table={} location={}", table.name(), orphan);
        }
        return new Outcome(removed, null);
    }

    /** Every file location {@code metadata} references, in normal form. */
    static Set<String> reachable(Table table, TableMetadata metadata) {
        Set<String> files = new HashSet<>();
        files.add(normal(metadata.metadataFileLocation()));
        metadata.previousFiles().forEach(entry -> files.add(normal(entry.file())));
        metadata.statisticsFiles().stream().map(StatisticsFile::path).forEach(path -> files.add(normal(path)));
        metadata.partitionStatisticsFiles().stream()
                .map(PartitionStatisticsFile::path)
                .forEach(path -> files.add(normal(path)));
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            if (snapshot.manifestListLocation() != null) {
                files.add(normal(snapshot.manifestListLocation()));
            }
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                if (manifests.add(manifest.path())) {
                    files.add(normal(manifest.path()));
                    contentFiles(table, manifest).forEach(path -> files.add(normal(path)));
                }
            }
        }
        return files;
    }

    private static List<String> contentFiles(Table table, ManifestFile manifest) {
        FileIO io = table.io();
        List<String> paths = new ArrayList<>();
        try {
            if (manifest.content() == ManifestContent.DATA) {
                try (CloseableIterable<String> data = ManifestFiles.readPaths(manifest, io, table.specs())) {
                    data.forEach(paths::add);
                }
            } else {
                try (ManifestReader<DeleteFile> deletes =
                        ManifestFiles.readDeleteManifest(manifest, io, table.specs())) {
                    deletes.forEach(file -> paths.add(file.location()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read manifest " + manifest.path() + " of " + table.name(), e);
        }
        return paths;
    }

    /** {@code file:///x} and {@code file://localhost/x} are {@code file:/x}; other schemes compare as written. */
    static String normal(String location) {
        if (location.startsWith("file:///")) {
            return "file:/" + location.substring("file:///".length());
        }
        if (location.startsWith("file://localhost/")) {
            return "file:/" + location.substring("file://localhost/".length());
        }
        return location;
    }

    private static String trimSlash(String location) {
        return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    }
}
