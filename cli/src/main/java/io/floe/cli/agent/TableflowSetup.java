package io.floe.cli.agent;

import io.floe.cli.FloeVersion;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectStore;
import io.floe.tableflow.TableflowConfig;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.changes.ChangeLimits;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.changes.ChangesEndpoint;
import io.floe.tableflow.changes.stream.ChangeStreamConfig;
import io.floe.tableflow.changes.stream.ChangeStreams;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.rest.ReadOnlyRestCatalog;
import io.floe.tableflow.rest.RestCatalogConfig;
import io.floe.tableflow.rest.RestCatalogHandler;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Tableflow's parts from the agent's settings: the Iceberg JDBC catalog in the metadata database, its
 * tables below {@code <objects>/tables} in the same object store as the segments, and the read-only
 * Iceberg REST catalog over it.
 */
final class TableflowSetup {

    private TableflowSetup() {}

    static TableflowConfig config(AgentSettings settings) {
        return TableflowConfig.defaults(spool(settings))
                .withLeaseTtl(settings.tableflowLease())
                .withStallTimeout(settings.tableflowStallTimeout())
                .withUpsertIndexBytes(settings.tableflowUpsertIndexBytes());
    }

    static TableCatalog catalog(AgentSettings settings, ObjectStore objects) {
        ObjectLocations locations = new ObjectLocations(Backends.location(settings.objectsUrl()));
        ObjectStoreFileIO io = new ObjectStoreFileIO(objects, locations, spool(settings));
        Backends.Database database = Backends.database(settings.metadataUrl());
        return new TableCatalog(
                IcebergCatalogs.jdbc(
                        database.jdbcUrl(), database.user(), database.password(), locations.root() + "/tables", io),
                TableflowConfig.DEFAULT_NAMESPACE);
    }

    /** Makes {@code handler} serve the REST catalog over {@code tables}' catalog; returns it. */
    static RestCatalogHandler serveRestCatalog(
            RestCatalogHandler handler, AgentSettings settings, TableCatalog tables) {
        handler.serve(new ReadOnlyRestCatalog(
                tables.catalog(), RestCatalogConfig.DEFAULTS.withDefaults(restCatalogDefaults(settings))));
        return handler;
    }

    /** Makes {@code handler} answer change queries on {@code tables}, reading the log as the table jobs do. */
    static ChangesEndpoint serveChanges(
            ChangesEndpoint handler,
            TableCatalog tables,
            MetadataStore metadata,
            ObjectStore objects,
            Clock clock,
            MeterRegistry meters) {
        ChangeQueries queries = new ChangeQueries(
                tables, metadata, metadata, new CommittedLog(metadata, objects), ChangeLimits.DEFAULTS, clock, meters);
        handler.serve(queries::plan);
        return handler;
    }

    /**
     * The change topics of the tables this agent holds, published through the agent's own Kafka listener
     * once {@code kafka} knows its address (the listener starts after Tableflow).
     */
    static ChangeStreams changeStreams(
            AgentSettings settings,
            TableCatalog tables,
            MetadataStore metadata,
            ObjectStore objects,
            Supplier<Optional<HostPort>> kafka,
            Clock clock,
            MeterRegistry meters) {
        ChangeQueries queries = new ChangeQueries(
                tables, metadata, metadata, new CommittedLog(metadata, objects), ChangeLimits.DEFAULTS, clock, meters);
        Supplier<Optional<String>> bootstrap = () -> kafka.get().map(TableflowSetup::reachable);
        return new ChangeStreams(
                ChangeStreamConfig.defaults(bootstrap, settings.clusterId(), FloeVersion.version())
                        .withHoldTimeout(settings.changesHoldTimeout()),
                queries,
                tables,
                metadata,
                clock,
                meters);
    }

    /** Where the agent reaches its own listener: a wildcard bind address is reached on the loopback. */
    static String reachable(HostPort listener) {
        return listener.isWildcard()
                ? new HostPort(InetAddress.getLoopbackAddress().getHostAddress(), listener.port()).toString()
                : listener.toString();
    }

    /**
     * The catalog defaults a REST client gets: for an S3 store, how its S3FileIO reaches the bucket
     * (region, endpoint, path-style addressing), so engines read the tables with their own
     * credentials; never the agent's credentials. None for other stores.
     */
    static Map<String, String> restCatalogDefaults(AgentSettings settings) {
        Map<String, String> defaults = new LinkedHashMap<>();
        if (Backends.location(settings.objectsUrl()).startsWith("s3://")) {
            defaults.put("client.region", settings.s3().region());
            settings.s3().endpoint().ifPresent(endpoint -> defaults.put("s3.endpoint", endpoint.toString()));
            if (settings.s3().pathStyleAccess()) {
                defaults.put("s3.path-style-access", "true");
            }
        }
        return defaults;
    }

    /** Where data files are written before their upload; what a crashed agent left there is removed. */
    private static Path spool(AgentSettings settings) {
        Path spool = settings.dataDir().resolve("tableflow-spool");
        if (Files.isDirectory(spool)) {
            try (Stream<Path> leftovers = Files.list(spool)) {
                for (Path file : (Iterable<Path>) leftovers::iterator) {
                    Files.deleteIfExists(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot clear the tableflow spool directory " + spool, e);
            }
        }
        return spool;
    }
}
