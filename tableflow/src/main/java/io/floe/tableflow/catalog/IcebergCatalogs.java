package io.floe.tableflow.catalog;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;

/** Opens the Iceberg catalog Tableflow keeps its tables in. */
public final class IcebergCatalogs {

    /** The catalog's name, as engines see it. */
    public static final String NAME = "floe";

    private IcebergCatalogs() {}

    /**
     * Iceberg's JDBC catalog in the metadata database ({@code jdbc:sqlite:...} or
     * {@code jdbc:postgresql://...}), its tables under {@code warehouse}, files through {@code io}.
     * {@code user} and {@code password} may be null (SQLite).
     */
    public static Catalog jdbc(String jdbcUrl, String user, String password, String warehouse, FileIO io) {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, jdbcUrl);
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
        properties.put(JdbcCatalog.PROPERTY_PREFIX + "schema-version", "V1");
        if (user != null) {
            properties.put(JdbcCatalog.PROPERTY_PREFIX + "user", user);
        }
        if (password != null) {
            properties.put(JdbcCatalog.PROPERTY_PREFIX + "password", password);
        }
        if (jdbcUrl.startsWith("jdbc:sqlite:")) {
            // The agent's metadata store writes the same file: wait for its write lock instead of failing.
            properties.put(JdbcCatalog.PROPERTY_PREFIX + "busy_timeout", "30000");
        }
        JdbcCatalog catalog = new JdbcCatalog(props -> io, props -> new JdbcClientPool(jdbcUrl, props), true);
        catalog.initialize(NAME, properties);
        return catalog;
    }
}
