package io.floe.tableflow.changes;

/**
 * What one change query may hold in memory.
 *
 * @param keysMax the most distinct keys an upsert table's query keeps the rows of (the keys the log
 *     changes between the base snapshot and the end); a larger range is refused
 * @param rowsPerSlice the most offsets (of one commit, over its partitions) an append table's query reads
 *     in one scan and orders (their rows are held while ordered)
 * @param logBytesPerRead the stored bytes read from the log at a time
 * @param queriesMax change queries an agent answers at once; more are answered 503
 */
public record ChangeLimits(int keysMax, int rowsPerSlice, long logBytesPerRead, int queriesMax) {

    public static final ChangeLimits DEFAULTS = new ChangeLimits(1_000_000, 50_000, 8L << 20, 2);

    public ChangeLimits {
        if (keysMax < 1 || rowsPerSlice < 1 || logBytesPerRead < 1 || queriesMax < 1) {
            throw new IllegalArgumentException("change query limits must be positive: keysMax=" + keysMax
                    + " rowsPerSlice=" + rowsPerSlice + " logBytesPerRead=" + logBytesPerRead + " queriesMax="
                    + queriesMax);
        }
    }
}
