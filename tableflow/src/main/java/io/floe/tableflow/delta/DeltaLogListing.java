package io.floe.tableflow.delta;

import io.floe.core.object.ObjectInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The files of one Delta log directory, from one listing: which versions have a commit, which have a
 * complete checkpoint, and which files the protocol's metadata cleanup may delete. Files of its
 * subdirectories ({@code _sidecars/}, {@code _staged_commits/}) and files of other names are ignored:
 * Floe's logs have none, and the cleanup leaves them alone.
 */
final class DeltaLogListing {

    private final List<DeltaLogFile> files;
    private final NavigableMap<Long, DeltaLogFile> commits = new TreeMap<>();

    private DeltaLogListing(List<DeltaLogFile> files) {
        this.files = files;
        files.stream()
                .filter(file -> file.kind() == DeltaLogFile.Kind.COMMIT)
                .forEach(file -> commits.put(file.version(), file));
    }

    /** The log files among {@code objects}, the keys of which start with {@code logPrefix}. */
    static DeltaLogListing of(String logPrefix, List<ObjectInfo> objects) {
        List<DeltaLogFile> files = new ArrayList<>();
        for (ObjectInfo object : objects) {
            String name = object.key().value().substring(logPrefix.length());
            DeltaLogFile.parse(name, object).ifPresent(files::add);
        }
        files.sort(Comparator.comparing(file -> file.object().key().value()));
        return new DeltaLogListing(files);
    }

    /** The newest version that has a commit file; empty when none has. */
    OptionalLong latestVersion() {
        return commits.isEmpty() ? OptionalLong.empty() : OptionalLong.of(commits.lastKey());
    }

    /**
     * The newest version at or below {@code version} with a complete checkpoint this reader can read (a
     * classic one, or every part of a multi-part one); empty when there is none.
     */
    OptionalLong checkpointAtOrBelow(long version) {
        return checkpoints().keySet().stream()
                .filter(v -> v <= version)
                .mapToLong(Long::longValue)
                .max();
    }

    /**
     * The complete checkpoints below version {@code below} whose files were all written after
     * {@code since}, oldest first, each as its files.
     */
    List<List<DeltaLogFile>> checkpointsWrittenAfter(Instant since, long below) {
        return checkpoints().headMap(below, false).values().stream()
                .filter(parts -> parts.stream().allMatch(file -> file.modified().isAfter(since)))
                .toList();
    }

    /** The files of the complete checkpoint at {@code version}, parts in order. */
    List<DeltaLogFile> checkpoint(long version) {
        List<DeltaLogFile> parts = checkpoints().get(version);
        if (parts == null) {
            throw new IllegalStateException("the delta log has no complete checkpoint at version " + version);
        }
        return parts;
    }

    /** The commit files of versions {@code from} to {@code to}, in order; throws when one is missing. */
    List<DeltaLogFile> commits(long from, long to) {
        List<DeltaLogFile> range = new ArrayList<>();
        for (long version = from; version <= to; version++) {
            DeltaLogFile commit = commits.get(version);
            if (commit == null) {
                throw new IllegalStateException("the delta log lacks the commit of version " + version + " (versions "
                        + from + " to " + to + " are needed to read version " + to + ")");
            }
            range.add(commit);
        }
        return range;
    }

    /**
     * The files Delta's metadata cleanup deletes when versions up to {@code cutoff} have expired and the
     * latest version is {@code latest}: the cut-off commit is the newest one whose file, and every earlier
     * commit's, is not newer than {@code cutoff}; the cut-off checkpoint the newest complete checkpoint
     * at or below it. Everything from the cut-off checkpoint on stays (its checkpoint and commit, every
     * commit after it, hence the latest checkpoint and the versions after that); before it go the
     * commits, checksums and checkpoints, and the compaction files that start at or below it. Empty
     * when no checkpoint is old enough; throws when a commit after the cut-off checkpoint is missing.
     */
    List<DeltaLogFile> expired(Instant cutoff, long latest) {
        long cutoffCommit = -1;
        for (DeltaLogFile commit : commits.headMap(latest, true).values()) {
            if (commit.modified().isAfter(cutoff)) {
                break;
            }
            cutoffCommit = commit.version();
        }
        OptionalLong checkpoint = cutoffCommit < 0 ? OptionalLong.empty() : checkpointAtOrBelow(cutoffCommit);
        if (checkpoint.isEmpty()) {
            return List.of();
        }
        long keepFrom = checkpoint.getAsLong();
        commits(keepFrom + 1, latest);
        return files.stream()
                .filter(file -> file.kind() == DeltaLogFile.Kind.COMPACTION
                        ? file.version() <= keepFrom
                        : file.version() < keepFrom)
                .toList();
    }

    /** Complete, readable checkpoints by version. */
    private NavigableMap<Long, List<DeltaLogFile>> checkpoints() {
        Map<Long, List<DeltaLogFile>> byVersion = files.stream()
                .filter(file -> file.kind() == DeltaLogFile.Kind.CHECKPOINT && file.parts() > 0)
                .collect(Collectors.groupingBy(DeltaLogFile::version));
        NavigableMap<Long, List<DeltaLogFile>> complete = new TreeMap<>();
        byVersion.forEach((version, candidates) -> {
            if (candidates.stream().anyMatch(file -> file.parts() == 1)) {
                complete.put(
                        version,
                        candidates.stream()
                                .filter(file -> file.parts() == 1)
                                .limit(1)
                                .toList());
                return;
            }
            Map<Integer, List<DeltaLogFile>> byParts =
                    candidates.stream().collect(Collectors.groupingBy(DeltaLogFile::parts));
            byParts.forEach((parts, set) -> {
                TreeSet<Integer> present =
                        set.stream().map(DeltaLogFile::part).collect(Collectors.toCollection(TreeSet::new));
                if (present.size() == parts && present.first() == 1 && present.last() == (int) parts) {
                    complete.put(
                            version,
                            set.stream()
                                    .sorted(Comparator.comparingInt(DeltaLogFile::part))
                                    .toList());
                }
            });
        });
        return complete;
    }
}
