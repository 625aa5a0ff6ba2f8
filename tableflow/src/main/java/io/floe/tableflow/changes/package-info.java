/**
 * Change queries on Tableflow tables: what a table gained between two points (snapshot ids, commit
 * times or log offsets), and for upsert tables every insert, update and delete in log order or the net
 * change per key. Append tables answer from the table itself (the rows whose {@code kafka_offset} lies
 * in the range), so they survive log retention; upsert tables answer from the table at the newest
 * snapshot at or before the start (Iceberg time travel) and the committed log replayed from there, so
 * every intermediate version and its position in the log is known. {@link
 * io.floe.tableflow.changes.ChangeQueries} plans and runs queries; {@link
 * io.floe.tableflow.changes.ChangesEndpoint} serves them on the agent's HTTP listener as JSON lines or
 * Parquet.
 */
package io.floe.tableflow.changes;
