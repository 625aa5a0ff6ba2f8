package io.floe.core.metadata;

/**
 * What the store references, for operators: committed objects and their bytes, uploads registered
 * but not committed, and objects waiting for deletion.
 */
public record StorageStats(long committedObjects, long committedBytes, long registeredObjects, long pendingDeletions) {}
