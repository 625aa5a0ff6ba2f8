package io.floe.core.object;

/**
 * An object-store operation failed. {@link #retriable()} says whether the same call may succeed
 * later (a timeout, a throttle, a broken connection) or will fail again (access denied, no bucket).
 */
public class ObjectStoreException extends RuntimeException {

    private final boolean retriable;

    public ObjectStoreException(String message, boolean retriable, Throwable cause) {
        super(message, cause);
        this.retriable = retriable;
    }

    public ObjectStoreException(String message, boolean retriable) {
        this(message, retriable, null);
    }

    public boolean retriable() {
        return retriable;
    }
}
