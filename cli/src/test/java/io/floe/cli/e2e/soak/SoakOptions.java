package io.floe.cli.e2e.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The settings of one soak run, from the command line of {@code benchmarks/run-streams-soak.sh}.
 *
 * @param run how long the input is produced and faults are injected
 * @param seed the fault schedule's seed (the victims' roles and the pauses' lengths replay from it)
 * @param keys distinct input keys, {@code key-00000} on
 * @param recordsPerSecond the input rate, spread over the keys in a seeded order
 * @param partitions partitions of the input and output topics (and so of the changelog)
 * @param instances Kafka Streams instances of the application, one stream thread each
 * @param baselineAt when the changelog's metadata rows are first counted (faults start after it)
 * @param shortPause the range of a short pause's length: longer than the agents' 6 s leases
 * @param longPause one pause longer than the maintenance jobs' 2 min leases, when the run has room (0: none)
 * @param killDown how long a killed agent stays down, range
 * @param faultGap quiet time between two faults, range
 * @param settle how long the output may take to catch up after the input stopped
 * @param rowsSettle how long the changelog's rows may take, once the application is caught up and idle, to come
 *     within the bound: Kafka's cleaner removes a commit marker only once it lies below the cleaned offset and its
 *     {@code delete.retention.ms} has passed, so markers of the last minutes are still there at the end of any run
 * @param changelogDeleteRetention the changelog's {@code delete.retention.ms}: how long Kafka's cleaner
 *     keeps commit markers (and tombstones) below the cleaned offset
 * @param logs where the agents' logs, the report and the summary line go
 */
record SoakOptions(
        Duration run,
        long seed,
        int keys,
        int recordsPerSecond,
        int partitions,
        int instances,
        Duration baselineAt,
        Range shortPause,
        Duration longPause,
        Range killDown,
        Range faultGap,
        Duration settle,
        Duration rowsSettle,
        Duration changelogDeleteRetention,
        Path logs) {

    /** Inclusive bounds of a length drawn from the seed. */
    record Range(Duration min, Duration max) {
        Range {
            if (min.isNegative() || max.compareTo(min) < 0) {
                throw new IllegalArgumentException("need 0 <= min <= max, got " + min + " and " + max);
            }
        }

        static Range parse(String text) {
            String[] bounds = text.split("-", 2);
            Duration min = Duration.ofSeconds(Long.parseLong(bounds[0].trim()));
            Duration max = bounds.length == 1 ? min : Duration.ofSeconds(Long.parseLong(bounds[1].trim()));
            return new Range(min, max);
        }

        @Override
        public String toString() {
            return min.toSeconds() + "-" + max.toSeconds() + "s";
        }
    }

    static final String USAGE = """
            Usage: StreamsSoak [--seconds N] [--seed S] [--keys K] [--rate R] [--partitions P] [--instances N]
                               [--baseline-seconds N] [--short-pause MIN-MAX] [--long-pause-seconds N]
                               [--kill-down MIN-MAX] [--fault-gap MIN-MAX] [--settle-seconds N]
                               [--rows-settle-seconds N] [--changelog-delete-retention-ms N] [--logs DIR]
            Defaults: 600 s, a random seed, 60 keys, 100 records/s, 6 partitions, 2 instances, baseline at 60 s,
            short pauses 10-20 s, one long pause of 135 s, kills 2-8 s down, 20-40 s between faults, 300 s to
            settle, 240 s for the rows to settle, delete.retention.ms 60000, logs in target/streams-soak.""";

    SoakOptions {
        positive("run", run);
        if (keys < 1 || recordsPerSecond < 1 || partitions < 1 || instances < 1) {
            throw new IllegalArgumentException("keys, rate, partitions and instances must be >= 1");
        }
        if (baselineAt.compareTo(run) >= 0) {
            throw new IllegalArgumentException("the baseline (" + baselineAt.toSeconds()
                    + " s) must come before the end of the run (" + run.toSeconds() + " s)");
        }
        if (shortPause.min().compareTo(LEASE) <= 0) {
            throw new IllegalArgumentException(
                    "a short pause must outlast the agents' leases (" + LEASE.toSeconds() + " s), got " + shortPause);
        }
        positive("settle", settle);
        if (rowsSettle.isNegative()) {
            throw new IllegalArgumentException("rows settle must be >= 0, got " + rowsSettle);
        }
    }

    /** The agents' node id and group coordinator leases (Membership.HEARTBEAT_TIMEOUT, GroupLeases.TTL). */
    static final Duration LEASE = Duration.ofSeconds(6);

    static SoakOptions parse(String[] args, long randomSeed) {
        Duration run = Duration.ofMinutes(10);
        long seed = randomSeed;
        int keys = 60;
        int rate = 100;
        int partitions = 6;
        int instances = 2;
        Duration baseline = Duration.ofMinutes(1);
        Range shortPause = Range.parse("10-20");
        Duration longPause = Duration.ofSeconds(135);
        Range killDown = Range.parse("2-8");
        Range gap = Range.parse("20-40");
        Duration settle = Duration.ofMinutes(5);
        Duration rowsSettle = Duration.ofMinutes(4);
        Duration deleteRetention = Duration.ofMinutes(1);
        Path logs = Path.of("target", "streams-soak");
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty()) {
            String name = rest.remove(0);
            if (name.equals("--help") || name.equals("-h")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (rest.isEmpty()) {
                throw new IllegalArgumentException("option " + name + " needs a value\n" + USAGE);
            }
            String value = rest.remove(0);
            switch (name) {
                case "--seconds" -> run = Duration.ofSeconds(Long.parseLong(value));
                case "--seed" -> seed = Long.parseLong(value);
                case "--keys" -> keys = Integer.parseInt(value);
                case "--rate" -> rate = Integer.parseInt(value);
                case "--partitions" -> partitions = Integer.parseInt(value);
                case "--instances" -> instances = Integer.parseInt(value);
                case "--baseline-seconds" -> baseline = Duration.ofSeconds(Long.parseLong(value));
                case "--short-pause" -> shortPause = Range.parse(value);
                case "--long-pause-seconds" -> longPause = Duration.ofSeconds(Long.parseLong(value));
                case "--kill-down" -> killDown = Range.parse(value);
                case "--fault-gap" -> gap = Range.parse(value);
                case "--settle-seconds" -> settle = Duration.ofSeconds(Long.parseLong(value));
                case "--rows-settle-seconds" -> rowsSettle = Duration.ofSeconds(Long.parseLong(value));
                case "--changelog-delete-retention-ms" -> deleteRetention = Duration.ofMillis(Long.parseLong(value));
                case "--logs" -> logs = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + name + "\n" + USAGE);
            }
        }
        return new SoakOptions(
                run,
                seed,
                keys,
                rate,
                partitions,
                instances,
                baseline,
                shortPause,
                longPause,
                killDown,
                gap,
                settle,
                rowsSettle,
                deleteRetention,
                logs.toAbsolutePath());
    }

    /** The options as a command line that replays the run. */
    String replay() {
        return String.format(
                Locale.ROOT,
                "--seconds %d --seed %d --keys %d --rate %d --partitions %d --instances %d --baseline-seconds %d"
                        + " --short-pause %d-%d --long-pause-seconds %d --kill-down %d-%d --fault-gap %d-%d"
                        + " --rows-settle-seconds %d --changelog-delete-retention-ms %d",
                run.toSeconds(),
                seed,
                keys,
                recordsPerSecond,
                partitions,
                instances,
                baselineAt.toSeconds(),
                shortPause.min().toSeconds(),
                shortPause.max().toSeconds(),
                longPause.toSeconds(),
                killDown.min().toSeconds(),
                killDown.max().toSeconds(),
                faultGap.min().toSeconds(),
                faultGap.max().toSeconds(),
                rowsSettle.toSeconds(),
                changelogDeleteRetention.toMillis());
    }

    private static void positive(String what, Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + duration);
        }
    }
}
