package io.floe.core.metadata;

import io.floe.core.object.ObjectKey;
import java.time.Instant;

/** A committed object as the store knows it: its size and how many batch rows point into it. */
public record StoredObject(ObjectKey key, long sizeBytes, int refCount, Instant registeredAt) {}
