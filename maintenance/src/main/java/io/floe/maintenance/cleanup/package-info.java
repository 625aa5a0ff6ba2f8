/**
 * Cleanup: the orphan sweep (registrations never committed, objects no row knows) and the deletion
 * of scheduled objects once their delay has passed. Nothing is deleted on age alone: an object
 * leaves the object store only after a committed transaction took it out of the metadata.
 */
package io.floe.maintenance.cleanup;
