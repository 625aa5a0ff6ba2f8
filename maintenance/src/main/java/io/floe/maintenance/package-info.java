/**
 * Background jobs that keep storage healthy (DESIGN §5): segment compaction, key compaction,
 * retention and the cleanup of unreferenced objects. Each job runs under a lease in the metadata store, so one agent
 * runs it at a time and another takes over when that agent dies; none relies on the lease for
 * safety: every change is a metadata transaction that checks what it changes, and an object leaves
 * the object store only after a committed transaction scheduled its deletion.
 */
package io.floe.maintenance;
