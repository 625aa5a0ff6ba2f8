/**
 * Table maintenance, run by a table's job after its rounds: small-file compaction (rewrites a
 * partition's small data files into files of the target size), snapshot expiry (drops snapshots older
 * than the retention and the files only they referenced) and orphan file removal (deletes old files in
 * the table's directories that no snapshot or metadata file references). Every commit is pinned, a
 * compare-and-swap against the metadata the action planned from, so maintenance never overwrites a
 * round's commit nor changes which records the table's watermark says it holds.
 */
package io.floe.tableflow.maintenance;
