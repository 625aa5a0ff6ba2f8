package io.floe.tableflow.catalog;

import io.floe.core.concurrency.Concurrency;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the Iceberg catalog Tableflow keeps its tables in. */
public final class IcebergCatalogs {

    /** The catalog's name, as engines see it. */
    public static final String NAME = "floe";

    private static final Logger LOGGER = LoggerFactory.getLogger(IcebergCatalogs.class);
    private static final int INIT_ATTEMPTS = 5;

    private IcebergCatalogs() {}

    /**
     * Iceberg's JDBC catalog in the metadata database ({@code jdbc:sqlite:...} or
     * {@code jdbc:postgresql://...}), its tables under {@code warehouse}, files through {@code io}.
     * {@code user} and {@code password} may be null (SQLite).
     */
    public static Catalog jdbc(String jdbcUrl, String user, String password, String warehouse, FileIO io) {
        return jdbc(jdbcUrl, user, password, warehouse, io, Concurrency.threads());
    }

    /** As {@link #jdbc(String, String, String, String, FileIO)}, waiting between set-up attempts on {@code concurrency}. */
    public static Catalog jdbc(
            String jdbcUrl, String user, String password, String warehouse, FileIO io, Concurrency concurrency) {
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
        // Agents starting together race in JdbcCatalog's schema set-up (each checks, then creates or alters
        // iceberg_tables; the loser's DDL fails with "already exists"): the set-up is retried, and then
        // finds the schema in place.
        RuntimeException last = null;
        for (int attempt = 1; attempt <= INIT_ATTEMPTS; attempt++) {
            JdbcCatalog catalog = new JdbcCatalog(props -> io, props -> new JdbcClientPool(jdbcUrl, props), true);
            try {
                catalog.initialize(NAME, properties);
                return catalog;
            } catch (RuntimeException e) {
                last = e;
                closeQuietly(catalog);
                LOGGER.info(
                        "Iceberg catalog set-up attempt {} of {} failed (another agent may be creating its"
                                + " tables): {}",
                        attempt,
                        INIT_ATTEMPTS,
                        e.getMessage());
                pause(attempt, concurrency);
            }
        }
        throw last;
    }

    private static void pause(int attempt, Concurrency concurrency) {
        try {
            // Jittered, so agents that collided do not collide again.
            concurrency.sleep(Duration.ofMillis(concurrency.random().nextLong(100, 300) * attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while setting up the Iceberg catalog", e);
        }
    }

    private static void closeQuietly(JdbcCatalog catalog) {
        try {
            catalog.close();
        } catch (RuntimeException e) {
            LOGGER.debug("cannot close a failed catalog: {}", e.toString());
        }
    }
}
