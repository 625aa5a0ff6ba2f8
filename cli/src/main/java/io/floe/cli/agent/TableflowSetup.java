package io.floe.cli.agent;

import io.floe.core.object.ObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.TableflowConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Tableflow's parts from the agent's settings: the Iceberg JDBC catalog in the metadata database, its
 * tables below {@code <objects>/tables} in the same object store as the segments.
 */
final class TableflowSetup {

    private TableflowSetup() {}

    static TableflowConfig config(AgentSettings settings) {
        return TableflowConfig.defaults(spool(settings)).withLeaseTtl(settings.tableflowLease());
    }

    static TableCatalog catalog(AgentSettings settings, ObjectStore objects) {
        ObjectLocations locations = new ObjectLocations(Backends.location(settings.objectsUrl()));
        ObjectStoreFileIO io = new ObjectStoreFileIO(objects, locations, spool(settings));
        Backends.Database database = Backends.database(settings.metadataUrl());
        return new TableCatalog(IcebergCatalogs.jdbc(database.jdbcUrl(), database.user(), database.password(),
                locations.root() + "/tables", io), TableflowConfig.DEFAULT_NAMESPACE);
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
