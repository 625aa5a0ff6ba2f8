package io.floe.metadata.sql;

/** One of a producer's last batches on a partition, kept to answer idempotent retries with the original offset. */
record RecentBatch(int baseSequence, int lastSequence, long baseOffset) {}
