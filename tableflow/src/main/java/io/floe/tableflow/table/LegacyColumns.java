package io.floe.tableflow.table;

import io.floe.tableflow.rows.Rows;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The column names of tables written before the metadata columns were renamed ({@code _partition},
 * {@code _offset}, ... and the dead letters' {@code _value}, {@code _error}), and their migration: one
 * schema commit that renames them by field id. A rename changes only the table metadata: data files
 * find their columns by field id, the partition spec refers to its source column by id (its partition
 * field keeps its old name, {@code _timestamp_day}), and no data file is rewritten.
 */
final class LegacyColumns {

    private static final Logger LOGGER = LoggerFactory.getLogger(LegacyColumns.class);

    /** Old name to new name, for the table and its dead-letter table alike. */
    static final Map<String, String> RENAMES = renames();

    private LegacyColumns() {}

    /** Whether {@code schema} still has a column of the old layout. */
    static boolean present(Schema schema) {
        return RENAMES.keySet().stream().anyMatch(name -> schema.findField(name) != null);
    }

    /**
     * Renames the old columns of {@code table} in one commit (a compare-and-swap like every commit of
     * these tables: it fails when another agent changed the table first, and the next round re-reads
     * it); does nothing when there are none.
     */
    static void rename(Table table) {
        Schema schema = table.schema();
        if (!present(schema)) {
            return;
        }
        UpdateSchema update = table.updateSchema();
        Map<String, String> renamed = new LinkedHashMap<>();
        RENAMES.forEach((from, to) -> {
            if (schema.findField(from) != null) {
                update.renameColumn(from, to);
                renamed.put(from, to);
            }
        });
        update.commit();
        table.refresh();
        LOGGER.info(
                "renamed the metadata columns of table={} renamed={} (by field id; no data file rewritten)",
                table.name(),
                renamed);
    }

    private static Map<String, String> renames() {
        Map<String, String> renames = new LinkedHashMap<>();
        renames.put("_partition", Rows.PARTITION);
        renames.put("_offset", Rows.OFFSET);
        renames.put("_timestamp", Rows.TIMESTAMP);
        renames.put("_key", Rows.KEY);
        renames.put("_headers", Rows.HEADERS);
        renames.put("_value", Rows.DEAD_VALUE);
        renames.put("_error", Rows.DEAD_REASON);
        return java.util.Collections.unmodifiableMap(renames);
    }
}
