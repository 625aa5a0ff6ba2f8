/**
 * Segment compaction: small multi-partition objects, as the produce path writes them, are merged
 * into per-partition objects near a target size, so reads of a partition become few long range reads
 * and the object count stays proportional to the data, not to the flushes.
 */
package io.floe.maintenance.compaction;
