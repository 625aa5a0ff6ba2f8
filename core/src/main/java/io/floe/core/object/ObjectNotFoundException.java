package io.floe.core.object;

/** No object is stored under the key (never written, or deleted). */
public final class ObjectNotFoundException extends ObjectStoreException {

    public ObjectNotFoundException(ObjectKey key) {
        super("object " + key + " not found", false);
    }
}
