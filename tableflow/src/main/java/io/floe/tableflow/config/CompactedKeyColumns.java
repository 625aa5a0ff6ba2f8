package io.floe.tableflow.config;

import io.floe.core.config.TopicConfigs;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * Refuses an upsert table keyed by columns of the value on a topic whose log compaction keeps the newest
 * record per record key ({@code cleanup.policy} with {@code compact}), unless the topic declares that its
 * record keys map one-to-one to the key columns' values ({@link
 * TableflowConfigs#UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY}). Otherwise compaction removes a record whose
 * record key has a newer record of another id, which may be its id's newest: a table that reads the log
 * after the cleaning keeps an older row of that id, or none. The configs are checked as a whole, so it
 * holds whichever was set first.
 */
public final class CompactedKeyColumns {

    private CompactedKeyColumns() {}

    /** {@link IllegalArgumentException}, saying what to do, when {@code topicConfigs} combine the two. */
    public static void check(Map<String, String> topicConfigs) {
        boolean declared = declared(topicConfigs);
        String keyColumns = topicConfigs.getOrDefault(TableflowConfigs.UPSERT_KEY_COLUMNS, "");
        if (keyColumns.isBlank() || declared || !compacted(topicConfigs)) {
            return;
        }
        throw new IllegalArgumentException(TableflowConfigs.UPSERT_KEY_COLUMNS + "=" + keyColumns
                + " keys the table by the value's columns, and " + TopicConfigs.CLEANUP_POLICY + "="
                + topicConfigs.get(TopicConfigs.CLEANUP_POLICY)
                + " keeps only the newest record of each record key, which loses an id's newest row when its"
                + " record key also carries other ids: set " + TableflowConfigs.UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY
                + "=true if each record key carries one id and each id one record key (as Debezium keys by the"
                + " primary key), or set " + TopicConfigs.CLEANUP_POLICY + "=delete");
    }

    /** Whether the topic declares its record keys one-to-one with the key columns' values. */
    private static boolean declared(Map<String, String> topicConfigs) {
        String text = topicConfigs.getOrDefault(TableflowConfigs.UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY, "false");
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new IllegalArgumentException("Invalid value " + text + " for configuration "
                        + TableflowConfigs.UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY + ": expected true or false");
        };
    }

    private static boolean compacted(Map<String, String> topicConfigs) {
        String policy = topicConfigs.getOrDefault(
                TopicConfigs.CLEANUP_POLICY, TopicConfigs.builtInDefault(TopicConfigs.CLEANUP_POLICY));
        return Arrays.stream(policy.split(",")).anyMatch(part -> part.trim().equals("compact"));
    }
}
