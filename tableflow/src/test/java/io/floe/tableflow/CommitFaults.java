package io.floe.tableflow;

import io.floe.tableflow.table.ForwardingTableOperations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.jdbc.UncheckedSQLException;

/**
 * An Iceberg catalog that injects a fault into the next snapshot commit (a commit that changes the
 * table's current snapshot, not a schema or property change) of an armed table: the ways a catalog
 * commit ends for its caller, or ({@link #armKill}) the agent killed at that point, as by kill -9.
 * Tables it loads commit through the real catalog otherwise; tables it creates are the real catalog's
 * own (arm a fault only once a table exists).
 */
final class CommitFaults implements Catalog, SupportsNamespaces, AutoCloseable {

    /** What the armed commit does. */
    enum Fault {
        /** The swap happens, then the caller hears {@link CommitStateUnknownException}. */
        APPLIED_THEN_UNKNOWN(true),
        /** The caller hears {@link CommitStateUnknownException}; the swap never happened. */
        UNKNOWN_NOT_APPLIED(false),
        /**
         * The swap happens, then the JDBC catalog loses its database connection before the answer, as
         * {@code JdbcTableOperations} reports it: {@code UncheckedSQLException("Database Connection failed")}.
         */
        CONNECTION_LOST_AFTER_APPLY(true),
        /** Another writer won: {@link CommitFailedException}, the swap never happened. */
        REJECTED(false),
        /** Writing the commit's first manifest to the object store fails, before the swap is tried. */
        MANIFEST_WRITE_FAILS(false);

        final boolean applies;

        Fault(boolean applies) {
            this.applies = applies;
        }

        boolean atSwap() {
            return this != MANIFEST_WRITE_FAILS;
        }

        RuntimeException exception(TableIdentifier table) {
            return switch (this) {
                case APPLIED_THEN_UNKNOWN, UNKNOWN_NOT_APPLIED ->
                    new CommitStateUnknownException(
                            new RuntimeException("injected: answer of the commit of " + table + " lost"));
                case CONNECTION_LOST_AFTER_APPLY ->
                    new UncheckedSQLException(
                            new SQLNonTransientConnectionException("injected: connection to the catalog database cut"),
                            "Database Connection failed");
                case REJECTED -> new CommitFailedException("injected: the table %s changed meanwhile", table);
                case MANIFEST_WRITE_FAILS ->
                    new UncheckedIOException(new IOException("injected: cannot write a" + " manifest of " + table));
            };
        }
    }

    /** A fault that fired: on which table, what it did. */
    record Fired(TableIdentifier table, Fault fault) {}

    /**
     * The committing agent died at the swap: thrown as an {@link Error}, which no {@code catch} of
     * Tableflow's takes, so the job's thread runs none of its code after the commit (no answer heard, no
     * cleanup, no bookkeeping, no further round; its scheduler drops the task), and its memory is gone
     * with the job object.
     */
    static final class Killed extends Error {
        private static final long serialVersionUID = 1L;

        Killed(TableIdentifier table, Fault fault) {
            super("injected: the agent was killed at the commit of " + table + " ("
                    + (fault.applies ? "after" : "before") + " the catalog's swap)");
        }
    }

    private final Catalog delegate;
    private final Map<TableIdentifier, Fault> armed = new ConcurrentHashMap<>();
    private final Map<TableIdentifier, Fault> killing = new ConcurrentHashMap<>();
    private final List<Fired> fired = new CopyOnWriteArrayList<>();

    CommitFaults(Catalog delegate) {
        this.delegate = Objects.requireNonNull(delegate);
    }

    /** The next snapshot commit of {@code table} does what {@code fault} says, once. */
    void arm(TableIdentifier table, Fault fault) {
        armed.put(table, fault);
    }

    /**
     * The next commit of a round of {@code table} (a snapshot commit that is not a compaction's
     * {@code replace}, which a running job may make at any time) reaches the catalog's swap, the swap
     * happens if {@code fault} applies (else it never does, the round's data files, deletion vectors
     * and metadata written), and the agent is killed there: the commit throws {@link Killed}. Only the
     * faults at the swap: {@code MANIFEST_WRITE_FAILS} is refused.
     */
    void armKill(TableIdentifier table, Fault fault) {
        if (!fault.atSwap()) {
            throw new IllegalArgumentException("a kill strikes at the catalog's swap, and " + fault + " does not");
        }
        killing.put(table, fault);
    }

    List<Fired> fired() {
        return new ArrayList<>(fired);
    }

    /** Waits until {@code fault} fired; fails after {@code timeout}. */
    void awaitFired(Fired fault, Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!fired.contains(fault)) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError(fault + " did not fire in " + timeout + "; fired: " + fired);
            }
            Thread.sleep(20);
        }
    }

    @Override
    public Table loadTable(TableIdentifier identifier) {
        Table table = delegate.loadTable(identifier);
        TableOperations ops = ((HasTableOperations) table).operations();
        return new BaseTable(new FaultyOperations(identifier, ops), table.name());
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public List<TableIdentifier> listTables(Namespace namespace) {
        return delegate.listTables(namespace);
    }

    @Override
    public boolean dropTable(TableIdentifier identifier, boolean purge) {
        return delegate.dropTable(identifier, purge);
    }

    @Override
    public void renameTable(TableIdentifier from, TableIdentifier to) {
        delegate.renameTable(from, to);
    }

    @Override
    public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
        return delegate.buildTable(identifier, schema);
    }

    @Override
    public void createNamespace(Namespace namespace, Map<String, String> metadata) {
        namespaces().createNamespace(namespace, metadata);
    }

    @Override
    public List<Namespace> listNamespaces(Namespace namespace) {
        return namespaces().listNamespaces(namespace);
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
        return namespaces().loadNamespaceMetadata(namespace);
    }

    @Override
    public boolean dropNamespace(Namespace namespace) {
        return namespaces().dropNamespace(namespace);
    }

    @Override
    public boolean setProperties(Namespace namespace, Map<String, String> properties) {
        return namespaces().setProperties(namespace, properties);
    }

    @Override
    public boolean removeProperties(Namespace namespace, Set<String> properties) {
        return namespaces().removeProperties(namespace, properties);
    }

    @Override
    public boolean namespaceExists(Namespace namespace) {
        return namespaces().namespaceExists(namespace);
    }

    private SupportsNamespaces namespaces() {
        return (SupportsNamespaces) delegate;
    }

    @Override
    public void close() throws Exception {
        if (delegate instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    private final class FaultyOperations extends ForwardingTableOperations {
        private final TableIdentifier identifier;

        FaultyOperations(TableIdentifier identifier, TableOperations delegate) {
            super(delegate);
            this.identifier = identifier;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            boolean snapshotCommit =
                    base != null && !Objects.equals(base.currentSnapshot(), metadata.currentSnapshot());
            Fault kill = snapshotCommit
                            && !DataOperations.REPLACE.equals(
                                    metadata.currentSnapshot().operation())
                    ? killing.get(identifier)
                    : null;
            if (kill != null && killing.remove(identifier, kill)) {
                if (kill.applies) {
                    delegate.commit(base, metadata);
                }
                fired.add(new Fired(identifier, kill));
                throw new Killed(identifier, kill);
            }
            Fault fault = snapshotCommit ? armed.get(identifier) : null;
            if (fault == null || !fault.atSwap() || !armed.remove(identifier, fault)) {
                delegate.commit(base, metadata);
                return;
            }
            if (fault.applies) {
                delegate.commit(base, metadata);
            }
            fired.add(new Fired(identifier, fault));
            throw fault.exception(identifier);
        }

        /** The table's FileIO; while a manifest fault is armed, one that fails writing the next manifest. */
        @Override
        public FileIO io() {
            FileIO io = delegate.io();
            if (armed.get(identifier) != Fault.MANIFEST_WRITE_FAILS) {
                return io;
            }
            return new FileIO() {
                @Override
                public InputFile newInputFile(String path) {
                    return io.newInputFile(path);
                }

                @Override
                public OutputFile newOutputFile(String path) {
                    if (path.contains("/metadata/")
                            && path.endsWith(".avro")
                            && armed.remove(identifier, Fault.MANIFEST_WRITE_FAILS)) {
                        fired.add(new Fired(identifier, Fault.MANIFEST_WRITE_FAILS));
                        throw Fault.MANIFEST_WRITE_FAILS.exception(identifier);
                    }
                    return io.newOutputFile(path);
                }

                @Override
                public void deleteFile(String path) {
                    io.deleteFile(path);
                }
            };
        }
    }
}
