package io.floe.metadata.sql;

import java.sql.SQLException;

/**
 * Hands out producer ids from blocks reserved in the {@code producer_id} counter, so most
 * allocations cost no write. Ids left in a block at shutdown are never used; ids are unique, not dense.
 */
final class ProducerIds {

    private static final int BLOCK_SIZE = 100;

    private final Database database;
    private long next; // guarded by this
    private long blockEnd; // guarded by this

    ProducerIds(Database database) {
        this.database = database;
    }

    synchronized long allocate() throws SQLException {
        if (next == blockEnd) {
            long first = database.write(connection -> Counters.allocate(connection, Counters.PRODUCER_ID, BLOCK_SIZE));
            next = first;
            blockEnd = first + BLOCK_SIZE;
        }
        return next++;
    }
}
