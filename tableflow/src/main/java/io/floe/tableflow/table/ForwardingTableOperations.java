package io.floe.tableflow.table;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A table's operations that forward every call to another's: the base of decorators that change one
 * or two of them (a pinned commit, an injected fault). Public for the tests' fault decorators.
 */
public abstract class ForwardingTableOperations implements TableOperations {

    protected final TableOperations delegate;

    protected ForwardingTableOperations(TableOperations delegate) {
        this.delegate = delegate;
    }

    @Override
    public TableMetadata current() {
        return delegate.current();
    }

    @Override
    public TableMetadata refresh() {
        return delegate.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
        delegate.commit(base, metadata);
    }

    @Override
    public FileIO io() {
        return delegate.io();
    }

    @Override
    public EncryptionManager encryption() {
        return delegate.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
        return delegate.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
        return delegate.locationProvider();
    }

    @Override
    public long newSnapshotId() {
        return delegate.newSnapshotId();
    }
}
