package io.floe.tableflow.rows;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.MetadataColumns;

/**
 * Column names that the engines reading Floe's tables give a meaning of their own, so a table column
 * of that name fails or is shadowed there. Spark's Iceberg runtime refuses to read a table that has a
 * column named like an Iceberg metadata column; Trino's hidden columns start with {@code $},
 * Snowflake's with {@code METADATA$}; Spark's file sources and Delta use {@code _metadata} and Delta's
 * change feed {@code _commit_version} and {@code _commit_timestamp}. Names compare case-insensitively,
 * as Spark, Trino and Snowflake resolve unquoted names. Only top-level columns matter: none of these
 * engines adds hidden fields inside a struct.
 */
final class ReservedNames {

    private static final String ICEBERG =
            "Iceberg reserves for its metadata columns (Spark refuses to read" + " a table with such a column)";
    /**
     * Iceberg's metadata columns (also those of changelog scans and row lineage) as of 1.10, listed
     * because {@link MetadataColumns#isMetadataColumn(String)} leaves some out (the changelog ones).
     */
    private static final Map<String, String> NAMES = Map.ofEntries(
            Map.entry("_file", ICEBERG),
            Map.entry("_pos", ICEBERG),
            Map.entry("_deleted", ICEBERG),
            Map.entry("_spec_id", ICEBERG),
            Map.entry("_partition", ICEBERG),
            Map.entry("_row_id", ICEBERG),
            Map.entry("_last_updated_sequence_number", ICEBERG),
            Map.entry("_change_type", ICEBERG),
            Map.entry("_change_ordinal", ICEBERG),
            Map.entry("_commit_snapshot_id", ICEBERG),
            Map.entry("_metadata", "Spark and Delta reserve for file metadata"),
            Map.entry("_commit_version", "Delta reserves for its change data feed"),
            Map.entry("_commit_timestamp", "Delta reserves for its change data feed"));

    private ReservedNames() {}

    /** Who reserves {@code name} and for what, or empty when a column may take it. */
    static Optional<String> reservedBy(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (NAMES.containsKey(lower)) {
            return Optional.of(NAMES.get(lower));
        }
        if (MetadataColumns.isMetadataColumn(lower)) {
            return Optional.of(ICEBERG);
        }
        if (lower.startsWith("$")) {
            return Optional.of("Trino reserves for hidden columns (names starting with $)");
        }
        if (lower.startsWith("metadata$")) {
            return Optional.of("Snowflake reserves for metadata columns (names starting with METADATA$)");
        }
        return Optional.empty();
    }
}
