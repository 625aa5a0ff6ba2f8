package io.floe.core.metadata;

/** A metadata-store operation failed; {@link #retriable()} says whether retrying may help. */
public class MetadataStoreException extends RuntimeException {

    private final boolean retriable;

    public MetadataStoreException(String message, boolean retriable, Throwable cause) {
        super(message, cause);
        this.retriable = retriable;
    }

    public boolean retriable() {
        return retriable;
    }
}
