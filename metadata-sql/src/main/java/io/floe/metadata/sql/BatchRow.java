package io.floe.metadata.sql;

import io.floe.core.metadata.BatchAppend;

/** A batch the commit appended: where it went, and the batch itself. */
record BatchRow(long partitionId, long baseOffset, long lastOffset, BatchAppend batch) {}
