package io.floe.tableflow.delta;

import io.floe.core.object.ObjectInfo;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One file of a Delta log directory, named as Delta's protocol names them: a commit
 * ({@code 00000000000000000042.json}), its checksum ({@code .crc}), a checkpoint (classic
 * {@code .checkpoint.parquet}, one part of a multi-part checkpoint {@code .checkpoint.0000000001.0000000002.parquet},
 * or UUID-named), or a log compaction file ({@code 00000000000000000040.00000000000000000042.compacted.json}).
 *
 * @param version the version of a commit, checksum or checkpoint; the first version of a compaction file
 * @param part the part of a checkpoint (1 for a classic one, 0 for a UUID-named one)
 * @param parts how many parts its checkpoint has (1 for a classic one, 0 for a UUID-named one, which
 *     needs its sidecar files and is not read here)
 */
record DeltaLogFile(ObjectInfo object, Kind kind, long version, int part, int parts) {

    /** What a log file is. */
    enum Kind {
        COMMIT,
        CHECKSUM,
        CHECKPOINT,
        COMPACTION
    }

    private static final String VERSION = "(\\d{20})";
    private static final Pattern COMMIT = Pattern.compile(VERSION + "\\.json");
    private static final Pattern CHECKSUM = Pattern.compile(VERSION + "\\.crc");
    private static final Pattern CLASSIC_CHECKPOINT = Pattern.compile(VERSION + "\\.checkpoint\\.parquet");
    private static final Pattern PART_CHECKPOINT =
            Pattern.compile(VERSION + "\\.checkpoint\\.(\\d{10})\\.(\\d{10})\\.parquet");
    private static final Pattern UUID_CHECKPOINT = Pattern.compile(
            VERSION + "\\.checkpoint\\.[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\\.(json|parquet)");
    private static final Pattern COMPACTION = Pattern.compile(VERSION + "\\.\\d{20}\\.compacted\\.json");

    /** The log file {@code name} (the part of the key after the log's prefix) names; empty for any other file. */
    static Optional<DeltaLogFile> parse(String name, ObjectInfo object) {
        Matcher m;
        if ((m = COMMIT.matcher(name)).matches()) {
            return Optional.of(new DeltaLogFile(object, Kind.COMMIT, version(m), 0, 0));
        }
        if ((m = CHECKSUM.matcher(name)).matches()) {
            return Optional.of(new DeltaLogFile(object, Kind.CHECKSUM, version(m), 0, 0));
        }
        if ((m = CLASSIC_CHECKPOINT.matcher(name)).matches()) {
            return Optional.of(new DeltaLogFile(object, Kind.CHECKPOINT, version(m), 1, 1));
        }
        if ((m = PART_CHECKPOINT.matcher(name)).matches()) {
            return Optional.of(new DeltaLogFile(
                    object, Kind.CHECKPOINT, version(m), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
        }
        if ((m = UUID_CHECKPOINT.matcher(name)).matches()) {
            return Optional.of(new DeltaLogFile(object, Kind.CHECKPOINT, version(m), 0, 0));
        }
        if ((m = COMPACTION.matcher(name)).matches()) {
            return Optional.of(new DeltaLogFile(object, Kind.COMPACTION, version(m), 0, 0));
        }
        return Optional.empty();
    }

    Instant modified() {
        return object.lastModified();
    }

    private static long version(Matcher matcher) {
        return Long.parseLong(matcher.group(1));
    }
}
