package io.floe.tableflow.table;

import io.floe.core.config.InvalidConfigException;
import io.floe.core.topic.Topic;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.ValueDecoder;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses a change of a topic's declared value schema that its table cannot take. A round widens the
 * table with Iceberg's {@code unionByNameWith}, which adds fields and promotes types (int to long, float
 * to double, a wider decimal) but throws for any other type change; after such a change every round
 * would fail and the table would stall for good. The change is checked the same way before it is
 * stored: against the table's schema when this agent has the catalog and the table exists (also when
 * a topic is created under the name of a deleted one whose table is still there), else against the
 * schema the topic declared until now. Registered with the agent's topic configs, so CreateTopics and
 * AlterConfigs answer INVALID_CONFIG with Iceberg's reason. An upsert table's key columns (its schema's
 * identifier fields) are fixed when it is created: a change of {@code floe.tableflow.upsert.key.columns}
 * that the existing table does not have is refused the same way.
 */
public final class SchemaChange implements BiConsumer<Topic, Map<String, String>> {

    private static final Logger LOGGER = LoggerFactory.getLogger(SchemaChange.class);

    private final TableCatalog catalog;

    /** {@code catalog}: where the topics' tables are, or null on an agent without Tableflow. */
    public SchemaChange(TableCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public void accept(Topic current, Map<String, String> overrides) {
        if (same(current.configs(), overrides, TableflowConfigs.SCHEMA)
                && same(current.configs(), overrides, TableflowConfigs.FORMAT)
                && same(current.configs(), overrides, TableflowConfigs.UPSERT_KEY_COLUMNS)) {
            return;
        }
        List<String> keyColumns;
        Schema wanted;
        try {
            TableSettings settings = TableSettings.from(overrides);
            keyColumns = settings.upsertKeyColumns();
            wanted = tableSchema(settings);
        } catch (IllegalArgumentException e) {
            return; // the configs' own check reports it
        }
        Optional<Table> table = table(current);
        table.flatMap(existing -> TableCatalog.keyChange(existing, keyColumns)).ifPresent(change -> {
            throw new InvalidConfigException(change);
        });
        Optional<Schema> existing = table.map(Table::schema).or(() -> declared(current));
        if (existing.isEmpty()) {
            return;
        }
        try {
            widened(existing.get(), wanted);
        } catch (IllegalArgumentException | ValidationException e) {
            throw new InvalidConfigException("the new " + TableflowConfigs.SCHEMA + " of topic " + current.name()
                    + " does not fit its table: " + e.getMessage() + ". A table's field can gain fields and widen"
                    + " (int to long, float to double, a wider decimal) but not change its type; declare a field"
                    + " under a new name instead");
        }
    }

    private static boolean same(Map<String, String> before, Map<String, String> after, String name) {
        return Objects.equals(before.get(name), after.get(name));
    }

    /** The topic's table, when this agent has the catalog and the table exists. */
    private Optional<Table> table(Topic current) {
        if (catalog == null) {
            return Optional.empty();
        }
        try {
            return catalog.load(current.name());
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "cannot load the table of topic={} to check its schema change; checking against the"
                            + " schema declared until now: {}",
                    current.name(),
                    e.toString());
            return Optional.empty();
        }
    }

    /**
     * The schema the topic declared until now, if any; without identifier fields, as no table fixed its key
     * columns yet.
     */
    private static Optional<Schema> declared(Topic current) {
        if (!current.configs().containsKey(TableflowConfigs.SCHEMA)) {
            return Optional.empty(); // a topic being created, or one that declared no schema: nothing to fit
        }
        try {
            return Optional.of(new Schema(
                    tableSchema(TableSettings.from(current.configs())).columns()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Schema tableSchema(TableSettings settings) {
        return Rows.tableSchema(ValueDecoder.of(settings).valueType(), settings.upsertKeyColumns());
    }

    /** {@code existing} widened to {@code wanted} as a round does it; throws when Iceberg refuses. */
    static Schema widened(Schema existing, Schema wanted) {
        TableMetadata metadata = TableMetadata.newTableMetadata(
                existing, PartitionSpec.unpartitioned(), "memory:/schema-check", Map.of());
        return new BaseTable(new Detached(metadata), "schema-check")
                .updateSchema()
                .unionByNameWith(wanted)
                .apply();
    }

    /** Operations of a table that exists only to compute a schema update; it never commits or reads files. */
    private record Detached(TableMetadata current) implements TableOperations {
        @Override
        public TableMetadata refresh() {
            return current;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            throw new UnsupportedOperationException("a schema check never commits");
        }

        @Override
        public FileIO io() {
            throw new UnsupportedOperationException("a schema check reads no files");
        }

        @Override
        public String metadataFileLocation(String fileName) {
            throw new UnsupportedOperationException("a schema check writes no metadata");
        }

        @Override
        public LocationProvider locationProvider() {
            throw new UnsupportedOperationException("a schema check writes no files");
        }
    }
}
