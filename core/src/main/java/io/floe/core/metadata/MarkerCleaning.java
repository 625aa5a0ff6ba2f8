package io.floe.core.metadata;

/**
 * What one {@link LogRetention#cleanMarkers} call did.
 *
 * @param nextOffset where the next call over the same section continues; the section's end when done
 * @param removed markers removed
 * @param earliestHorizonMs the earliest delete horizon of a marker kept among those looked at, epoch
 *     milliseconds; {@link Long#MAX_VALUE} when none has one
 */
public record MarkerCleaning(long nextOffset, int removed, long earliestHorizonMs) {}
