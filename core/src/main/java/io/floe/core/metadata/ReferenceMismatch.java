package io.floe.core.metadata;

import io.floe.core.object.ObjectKey;

/**
 * An object whose stored reference count is not the number of batch rows pointing into it, as
 * {@link MetadataStore#referenceMismatches()} finds it. An under-count lets the sweep delete an object
 * that rows still point into; an over-count keeps an object no row needs forever.
 *
 * @param state the object row's state ({@code COMMITTED}, {@code REGISTERED}), or {@code MISSING} when
 *     batch rows point at a key that has no object row at all
 * @param refCount the stored reference count (0 when the row is missing)
 * @param batchRows the batch rows pointing into the object
 */
public record ReferenceMismatch(ObjectKey object, String state, long refCount, long batchRows) {

    public static final String MISSING = "MISSING";
}
