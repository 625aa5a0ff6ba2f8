package io.floe.tableflow.table;

import io.floe.tableflow.config.Partitioning;
import io.floe.tableflow.config.TableMode;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.UpsertKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a topic's tables are: {@code <namespace>.<topic>} for its rows and
 * {@code <namespace>_dead_letters.<topic>} for the records that did not fit. Creates them on first
 * use with the properties Tableflow relies on, evolves a table's schema when the declared one
 * gains fields, and renames the metadata columns of tables written with the old names.
 */
public final class TableCatalog implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(TableCatalog.class);

    /**
     * Set on every table Tableflow creates. No commit retries: a commit that lost the compare-and-swap
     * must fail so its writer re-reads the watermark (an automatic retry would append the records again).
     */
    public static final Map<String, String> TABLE_PROPERTIES = Map.of(
            TableProperties.FORMAT_VERSION,
            "2",
            TableProperties.COMMIT_NUM_RETRIES,
            "0",
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
            Integer.toString(32 << 20),
            TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED,
            "true",
            TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
            "20",
            "floe.managed-by",
            "floe-tableflow");

    /**
     * Set on a table while its rounds keep failing past the stall timeout: since when, how many rounds,
     * the last failure. Removed when a round succeeds again. {@code floe tables describe} shows it.
     */
    public static final String STALLED_PROPERTY = "floe.tableflow.stalled";

    /**
     * The table's {@link TableMode}, fixed when it is created (tables created before upsert tables
     * existed have none and are append tables). An upsert table is created at format version 3: its
     * row-level deletes are deletion vectors.
     */
    public static final String MODE_PROPERTY = "floe.tableflow.mode";

    /**
     * Set on upsert tables: a Parquet Bloom filter on each key column of every row group (the record key,
     * or the key columns whose type a lookup probes: not boolean nor decimal), so a round that looks its
     * keys up reads only the row groups that may hold them. A round probes a row group with all its keys,
     * and skips it only if every probe misses: at a false-positive rate of 10^-5 a row group is skipped for
     * 10,000 new keys (1 - 10^-5)^10000 = 0.90 of the time, at 10^-4 only 0.37. Holding 10^-5 takes about
     * 30 bits a key, and a 32 MiB row group of small rows has 400,000 keys and more: hence 2 MiB at most
     * (Iceberg's default of 1 MiB held only 10^-4 there). Adaptive: each filter is the smallest of five
     * sizes (2 MiB down to 128 KiB) that holds its row group's keys at that rate. An explicit value (set by
     * an operator) is kept.
     */
    static Map<String, String> upsertProperties(UpsertKey key) {
        Map<String, String> properties = new HashMap<>();
        for (Types.NestedField column : key.columns()) {
            if (KeyProbe.probes(column.type())) {
                properties.put(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + column.name(), "true");
                properties.put(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_FPP_PREFIX + column.name(), "0.00001");
            }
        }
        properties.put(TableProperties.PARQUET_BLOOM_FILTER_ADAPTIVE_ENABLED, "true");
        properties.put(TableProperties.PARQUET_BLOOM_FILTER_MAX_BYTES, Integer.toString(2 << 20));
        return Map.copyOf(properties);
    }

    private static final int STALLED_TEXT_MAX = 1000;

    private final Catalog catalog;
    private final Namespace namespace;
    private final Namespace deadLetterNamespace;

    public TableCatalog(Catalog catalog, String namespace) {
        this.catalog = catalog;
        this.namespace = Namespace.of(namespace);
        this.deadLetterNamespace = Namespace.of(namespace + "_dead_letters");
    }

    public Catalog catalog() {
        return catalog;
    }

    public TableIdentifier identifier(String topic) {
        return TableIdentifier.of(namespace, topic);
    }

    public TableIdentifier deadLetterIdentifier(String topic) {
        return TableIdentifier.of(deadLetterNamespace, topic);
    }

    public Optional<Table> load(String topic) {
        return loadIfExists(identifier(topic));
    }

    public Optional<Table> loadDeadLetters(String topic) {
        return loadIfExists(deadLetterIdentifier(topic));
    }

    /** The topic's table, created with {@code schema} when missing, its schema widened to include {@code schema}. */
    Table loadOrCreate(String topic, Schema schema, TableSettings settings) {
        Table table = loadIfExists(identifier(topic))
                .map(existing -> renameLegacyColumns(topic, existing))
                .orElseGet(() -> create(
                        identifier(topic),
                        schema,
                        spec(schema, settings.partitioning()),
                        topic,
                        settings.compression(),
                        settings.mode()));
        TableMode mode = modeOf(table);
        if (mode != settings.mode()) {
            throw new IllegalStateException("table " + table.name() + " was created in " + mode.configName()
                    + " mode and its topic now asks for " + TableflowConfigs.MODE + "="
                    + settings.mode().configName()
                    + "; a table's mode cannot change: set the mode back, or drop the table to rebuild it");
        }
        if (mode == TableMode.UPSERT) {
            keyChange(table, settings.upsertKeyColumns()).ifPresent(change -> {
                throw new IllegalStateException(change);
            });
        }
        Map<String, String> upsertProperties =
                mode == TableMode.UPSERT ? upsertProperties(UpsertKey.of(table.schema())) : Map.of();
        if (!table.properties().keySet().containsAll(upsertProperties.keySet())) {
            UpdateProperties update = table.updateProperties();
            upsertProperties.forEach((name, value) -> {
                if (!table.properties().containsKey(name)) {
                    update.set(name, value);
                }
            });
            update.commit();
            table.refresh();
        }
        if (!settings.compression().equals(table.properties().get(TableProperties.PARQUET_COMPRESSION))) {
            table.updateProperties()
                    .set(TableProperties.PARQUET_COMPRESSION, settings.compression())
                    .commit();
            table.refresh();
        }
        UpdateSchema update = table.updateSchema().unionByNameWith(schema);
        if (!update.apply().sameSchema(table.schema())) {
            update.commit();
            table.refresh();
            LOGGER.info("table schema evolved table={} schema={}", table.name(), table.schema());
        }
        keepDecoding(table, RecordDecoding.of(settings));
        return table;
    }

    /**
     * Keeps the settings a round decodes with as a table property, before any commit names them, and
     * drops the settings no snapshot of the table names any more: a table keeps one property per edit of
     * its settings still within its snapshots.
     */
    private static void keepDecoding(Table table, RecordDecoding decoding) {
        String property = RecordDecoding.PROPERTY_PREFIX + decoding.fingerprint();
        if (table.properties().containsKey(property)) {
            return;
        }
        Set<String> named = new HashSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            String fingerprint = snapshot.summary().get(RecordDecoding.SUMMARY_PROPERTY);
            if (fingerprint != null) {
                named.add(RecordDecoding.PROPERTY_PREFIX + fingerprint);
            }
        }
        UpdateProperties update = table.updateProperties().set(property, decoding.toJson());
        table.properties().keySet().stream()
                .filter(name -> name.startsWith(RecordDecoding.PROPERTY_PREFIX) && !named.contains(name))
                .forEach(update::remove);
        update.commit();
        table.refresh();
        LOGGER.info("table decoding settings recorded table={} fingerprint={}", table.name(), decoding.fingerprint());
    }

    /**
     * Renames the old metadata columns of a table written before the rename, and of its dead-letter
     * table, before the schema is widened (a union by name would otherwise add the new names as new,
     * empty columns). The dead-letter table goes first: once the table has the new names, so has it.
     */
    private Table renameLegacyColumns(String topic, Table table) {
        if (LegacyColumns.present(table.schema())) {
            loadIfExists(deadLetterIdentifier(topic)).ifPresent(LegacyColumns::rename);
            LegacyColumns.rename(table);
        }
        return table;
    }

    Table loadOrCreateDeadLetters(String topic) {
        return loadIfExists(deadLetterIdentifier(topic))
                .orElseGet(() -> create(
                        deadLetterIdentifier(topic),
                        Rows.deadLetterSchema(),
                        PartitionSpec.unpartitioned(),
                        topic,
                        "zstd",
                        TableMode.APPEND));
    }

    /**
     * Why an upsert table cannot take {@code keyColumns} as its key, if it cannot: its key columns (its
     * schema's identifier fields; none when it is keyed by the record key) were fixed when it was made.
     */
    static Optional<String> keyChange(Table table, Collection<String> keyColumns) {
        Set<String> fixed = table.schema().identifierFieldNames();
        if (modeOf(table) != TableMode.UPSERT || fixed.equals(new HashSet<>(keyColumns))) {
            return Optional.empty();
        }
        return Optional.of("table " + table.name() + " is keyed by " + keyText(fixed) + ", fixed when it was"
                + " created, and its topic asks for " + TableflowConfigs.UPSERT_KEY_COLUMNS + "="
                + String.join(",", keyColumns) + " (" + keyText(keyColumns) + "); a table's key cannot change: set "
                + TableflowConfigs.UPSERT_KEY_COLUMNS + "=" + String.join(",", new TreeSet<>(fixed))
                + ", or drop the table to rebuild it");
    }

    private static String keyText(Collection<String> columns) {
        return columns.isEmpty() ? "the record key" : "the columns " + new TreeSet<>(columns);
    }

    /** The mode a table was created in. */
    public static TableMode modeOf(Table table) {
        String mode = table.properties().get(MODE_PROPERTY);
        return mode == null ? TableMode.APPEND : TableMode.parse(mode);
    }

    private Table create(
            TableIdentifier identifier,
            Schema schema,
            PartitionSpec spec,
            String topic,
            String compression,
            TableMode mode) {
        ensureNamespace(identifier.namespace());
        try {
            Catalog.TableBuilder builder = catalog.buildTable(identifier, schema)
                    .withPartitionSpec(spec)
                    .withProperties(TABLE_PROPERTIES)
                    .withProperty("floe.topic", topic)
                    .withProperty(TableProperties.PARQUET_COMPRESSION, compression)
                    .withProperty(MODE_PROPERTY, mode.configName());
            if (mode == TableMode.UPSERT) {
                builder = builder.withProperty(TableProperties.FORMAT_VERSION, "3")
                        .withProperties(upsertProperties(UpsertKey.of(schema)));
            }
            Table table = builder.create();
            LOGGER.info("created table table={} location={} spec={}", identifier, table.location(), table.spec());
            return table;
        } catch (AlreadyExistsException raced) {
            return catalog.loadTable(identifier);
        }
    }

    private void ensureNamespace(Namespace target) {
        if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(target)) {
            try {
                namespaces.createNamespace(target, Map.of());
            } catch (AlreadyExistsException raced) {
                // another agent created it first
            }
        }
    }

    private Optional<Table> loadIfExists(TableIdentifier identifier) {
        try {
            return Optional.of(catalog.loadTable(identifier));
        } catch (NoSuchTableException e) {
            return Optional.empty();
        }
    }

    /** Marks the topic's table stalled (best effort: a catalog that fails is why tables stall). */
    void markStalled(String topic, String description) {
        String text =
                description.length() > STALLED_TEXT_MAX ? description.substring(0, STALLED_TEXT_MAX) : description;
        try {
            load(topic)
                    .ifPresent(table ->
                            table.updateProperties().set(STALLED_PROPERTY, text).commit());
        } catch (RuntimeException e) {
            LOGGER.warn("cannot mark the table of topic={} stalled: {}", topic, e.toString());
        }
    }

    /** Removes the stalled mark of the topic's table, if it has one. */
    void clearStalled(String topic) {
        try {
            load(topic)
                    .filter(table -> table.properties().containsKey(STALLED_PROPERTY))
                    .ifPresent(table ->
                            table.updateProperties().remove(STALLED_PROPERTY).commit());
        } catch (RuntimeException e) {
            LOGGER.warn("cannot clear the stalled mark of the table of topic={}: {}", topic, e.toString());
        }
    }

    /** Closes the catalog (its database connections). */
    @Override
    public void close() {
        if (catalog instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOGGER.warn("cannot close the Iceberg catalog: {}", e.toString());
            }
        }
    }

    private static PartitionSpec spec(Schema schema, Partitioning partitioning) {
        return switch (partitioning) {
            case NONE -> PartitionSpec.unpartitioned();
            case DAY -> PartitionSpec.builderFor(schema).day(Rows.TIMESTAMP).build();
            case HOUR -> PartitionSpec.builderFor(schema).hour(Rows.TIMESTAMP).build();
        };
    }
}
