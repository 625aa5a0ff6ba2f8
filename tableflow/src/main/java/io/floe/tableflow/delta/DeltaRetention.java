package io.floe.tableflow.delta;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Delta table properties that say how long the log keeps what: {@code delta.deletedFileRetentionDuration}
 * (how long a file removed from the table stays for readers of older versions; VACUUM's threshold),
 * {@code delta.logRetentionDuration} (how long versions of the log stay) and
 * {@code delta.enableExpiredLogCleanup}, with Delta's defaults (1 week, 30 days, true).
 */
record DeltaRetention(Duration deletedFiles, Duration log, boolean logCleanupEnabled) {

    static final String DELETED_FILE_RETENTION = "delta.deletedFileRetentionDuration";
    static final String LOG_RETENTION = "delta.logRetentionDuration";
    static final String LOG_CLEANUP_ENABLED = "delta.enableExpiredLogCleanup";
    static final String DEFAULT_DELETED_FILE_RETENTION = "interval 1 week";
    static final String DEFAULT_LOG_RETENTION = "interval 30 days";

    /** From a Delta snapshot's table properties; throws {@link IllegalArgumentException} for a value it cannot read. */
    static DeltaRetention of(Map<String, String> properties) {
        String deletedFiles = properties.getOrDefault(DELETED_FILE_RETENTION, DEFAULT_DELETED_FILE_RETENTION);
        String log = properties.getOrDefault(LOG_RETENTION, DEFAULT_LOG_RETENTION);
        // As Delta reads it: anything but "true" turns the cleanup off.
        boolean cleanup = Boolean.parseBoolean(
                properties.getOrDefault(LOG_CLEANUP_ENABLED, "true").trim());
        return new DeltaRetention(
                interval(DELETED_FILE_RETENTION, deletedFiles), interval(LOG_RETENTION, log), cleanup);
    }

    /**
     * A Delta calendar interval ({@code interval 1 week}, {@code 2 days 12 hours}, {@code interval 168 hours}):
     * whole numbers of weeks, days, hours, minutes, seconds, milliseconds or microseconds. Months and years
     * are refused, as Delta refuses them.
     */
    static Duration interval(String property, String value) {
        String[] words = value.trim().toLowerCase(Locale.ROOT).split("\\s+");
        int first = words.length > 0 && words[0].equals("interval") ? 1 : 0;
        if (words.length == first || (words.length - first) % 2 != 0) {
            throw invalid(property, value);
        }
        Duration total = Duration.ZERO;
        for (int i = first; i < words.length; i += 2) {
            long amount;
            try {
                amount = Long.parseLong(words[i]);
            } catch (NumberFormatException e) {
                throw invalid(property, value);
            }
            if (amount < 0) {
                throw invalid(property, value);
            }
            try {
                total = total.plus(unit(property, value, words[i + 1]).multipliedBy(amount));
            } catch (ArithmeticException e) {
                throw invalid(property, value);
            }
        }
        return total;
    }

    /** {@code duration} as a Delta interval in its largest whole unit: {@code interval 1 days}, {@code interval 1500 milliseconds}. */
    static String interval(Duration duration) {
        long millis = duration.toMillis();
        for (Map.Entry<String, Long> unit : List.of(
                Map.entry("weeks", Duration.ofDays(7).toMillis()),
                Map.entry("days", Duration.ofDays(1).toMillis()),
                Map.entry("hours", Duration.ofHours(1).toMillis()),
                Map.entry("minutes", Duration.ofMinutes(1).toMillis()),
                Map.entry("seconds", Duration.ofSeconds(1).toMillis()))) {
            if (millis > 0 && millis % unit.getValue() == 0) {
                return "interval " + millis / unit.getValue() + " " + unit.getKey();
            }
        }
        return "interval " + millis + " milliseconds";
    }

    private static Duration unit(String property, String value, String word) {
        String singular = word.endsWith("s") ? word.substring(0, word.length() - 1) : word;
        return switch (singular) {
            case "week" -> Duration.ofDays(7);
            case "day" -> Duration.ofDays(1);
            case "hour" -> Duration.ofHours(1);
            case "minute" -> Duration.ofMinutes(1);
            case "second" -> Duration.ofSeconds(1);
            case "millisecond" -> Duration.ofMillis(1);
            case "microsecond" -> Duration.of(1, ChronoUnit.MICROS);
            default -> throw invalid(property, value);
        };
    }

    private static IllegalArgumentException invalid(String property, String value) {
        return new IllegalArgumentException("delta table property " + property + "='" + value
                + "' is not an interval of weeks, days, hours, minutes, seconds, milliseconds or microseconds"
                + " (for example 'interval 1 week'); set it to one such value");
    }
}
