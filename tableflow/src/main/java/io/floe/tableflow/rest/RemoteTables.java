package io.floe.tableflow.rest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.rest.RESTCatalog;

/** A client of an agent's Iceberg REST catalog that reads topics' tables as {@link RemoteTable}s. */
public final class RemoteTables implements AutoCloseable {

    private final String uri;
    private final RESTCatalog catalog = new RESTCatalog();

    /** Thrown when the catalog cannot be reached or fails; the message names the cause at the root. */
    public static final class UnreachableCatalogException extends RuntimeException {
        UnreachableCatalogException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A client of the catalog at {@code uri} (for example {@code http://host:9644/iceberg}). */
    public RemoteTables(String uri) {
        this.uri = uri;
        try {
            catalog.initialize("floe", Map.of("uri", uri));
        } catch (RESTException e) {
            throw new UnreachableCatalogException(rootMessage(e), e);
        }
    }

    /** The table {@code namespace.topic} with its dead letters' row count; empty when it has no table yet. */
    public Optional<RemoteTable> describe(String namespace, String topic) {
        try {
            return load(TableIdentifier.of(namespace, topic))
                    .map(table -> RemoteTable.of(table, load(TableIdentifier.of(namespace + "_dead_letters", topic))));
        } catch (RESTException e) {
            // Iceberg's client says only "Error occurred while processing GET request".
            throw new UnreachableCatalogException(rootMessage(e), e);
        }
    }

    private Optional<org.apache.iceberg.Table> load(TableIdentifier identifier) {
        try {
            return Optional.of(catalog.loadTable(identifier));
        } catch (NoSuchTableException e) {
            return Optional.empty();
        }
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null
                ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    @Override
    public void close() {
        try {
            catalog.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the client of the Iceberg REST catalog at " + uri, e);
        }
    }
}
