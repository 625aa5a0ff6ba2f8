package io.floe.metadata.sql;

/** One partition's markers while a commit runs: read once, advanced in memory, written back once. */
final class PartitionLog {

    private final long id;
    private final long logStartOffset;
    private long nextOffset;
    private boolean advanced;

    PartitionLog(long id, long logStartOffset, long nextOffset) {
        this.id = id;
        this.logStartOffset = logStartOffset;
        this.nextOffset = nextOffset;
    }

    long id() {
        return id;
    }

    long logStartOffset() {
        return logStartOffset;
    }

    long nextOffset() {
        return nextOffset;
    }

    /** Takes the next {@code recordCount} offsets and returns the first. */
    long append(int recordCount) {
        long baseOffset = nextOffset;
        nextOffset += recordCount;
        advanced = true;
        return baseOffset;
    }

    boolean advanced() {
        return advanced;
    }
}
