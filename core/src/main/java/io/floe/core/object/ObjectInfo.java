package io.floe.core.object;

import java.time.Instant;

/** What a listing tells about one object. */
public record ObjectInfo(ObjectKey key, long sizeBytes, Instant lastModified) {}
