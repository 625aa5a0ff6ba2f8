/**
 * Key compaction ({@code cleanup.policy=compact}): keeps the newest record of each key, removes
 * tombstones once {@code delete.retention.ms} has passed since the first cleaning that kept them, and
 * never changes the offset of a record it keeps, as Kafka's log cleaner does. Batches are filtered by
 * Kafka's own {@code MemoryRecords.filterTo} into new per-partition objects that one conditional
 * metadata transaction swaps in; batches left empty leave offset gaps.
 */
package io.floe.maintenance.keys;
