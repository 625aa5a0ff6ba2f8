package io.floe.core.object;

/** A create-only put found an object already stored under the key; nothing was written. */
public final class ObjectAlreadyExistsException extends ObjectStoreException {

    public ObjectAlreadyExistsException(ObjectKey key) {
        super("object " + key + " already exists", false);
    }
}
