package io.floe.tableflow.table;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's memory for the key indexes of its upsert tables, shared by them: the indexes held at once
 * never take more than {@code bytes} (as {@link KeyIndex#bytes} estimates them), however many tables the
 * agent holds. A table whose index does not fit looks its keys up in its files instead (as a table over
 * its own {@code floe.tableflow.upsert.index.max.keys} does).
 *
 * <p>Shared fairly: each table that wants an index is entitled to an equal part of the budget, its
 * <em>fair share</em>. A table may use memory beyond its share while it is free; a table that asks for no
 * more than its share gets it, by evicting the indexes that hold more than theirs (the largest first).
 * So an index within its share is never evicted, the small tables always have theirs, and the memory the
 * small ones leave goes to the others. Indexes are all or nothing: part of an index answers nothing.
 *
 * <p>One thread (Tableflow's) asks; the gauges may be read from any.
 */
public final class KeyIndexBudget {

    private static final Logger LOGGER = LoggerFactory.getLogger(KeyIndexBudget.class);

    private final long bytes;
    private final Set<Share> shares = new LinkedHashSet<>();
    private final AtomicLong total = new AtomicLong();
    private final Counter evictions;

    public KeyIndexBudget(long bytes, MeterRegistry meters) {
        if (bytes < 0) {
            throw new IllegalArgumentException("the upsert key index budget " + bytes + " must not be negative");
        }
        this.bytes = bytes;
        Gauge.builder("floe.tableflow.upsert.index.bytes", total, AtomicLong::get)
                .description("Estimated bytes the key indexes of this agent's upsert tables hold together")
                .baseUnit("bytes")
                .register(meters);
        Gauge.builder("floe.tableflow.upsert.index.budget.bytes", () -> this.bytes)
                .description("The agent's memory budget for upsert key indexes (--tableflow-upsert-index-bytes)")
                .baseUnit("bytes")
                .register(meters);
        this.evictions = Counter.builder("floe.tableflow.upsert.index.evictions")
                .description("Key indexes dropped to make room, within its fair share, for another table's")
                .register(meters);
    }

    /** The budget in bytes. */
    public long bytes() {
        return bytes;
    }

    /** The bytes the indexes hold now. */
    public long held() {
        return total.get();
    }

    /** A share for table {@code table}, which drops its index when {@code evict} runs. */
    synchronized Share open(String table, Runnable evict) {
        Share share = new Share(table, evict);
        shares.add(share);
        return share;
    }

    /** The fair share of each table that wants an index now. */
    synchronized long fairShare() {
        long wanting = shares.stream().filter(share -> share.wanted > 0).count();
        return wanting == 0 ? bytes : bytes / wanting;
    }

    private long heldByOthers(Share asking) {
        long others = 0;
        for (Share share : shares) {
            if (share != asking) {
                others += share.held;
            }
        }
        return others;
    }

    /**
     * Frees memory for {@code asking} by evicting the indexes above the fair share, largest first, until
     * {@code needed} bytes are free or none is left above it.
     */
    private void evictAboveFairShare(Share asking, long needed) {
        long fair = fairShare();
        List<Share> over = new ArrayList<>();
        for (Share share : shares) {
            if (share != asking && share.held > fair) {
                over.add(share);
            }
        }
        over.sort(Comparator.comparingLong((Share share) -> share.held).reversed());
        for (Share share : over) {
            if (bytes - heldByOthers(asking) >= needed) {
                return;
            }
            LOGGER.info(
                    "upsert key index evicted table={} bytes={} fairShare={} for table={}",
                    share.table,
                    share.held,
                    fair,
                    asking.table);
            long freed = share.held;
            share.drop();
            evictions.increment();
            total.addAndGet(-freed);
            share.evict.run();
        }
    }

    /** One table's part of the budget: what it wants and what its index holds. */
    final class Share {
        private final String table;
        private final Runnable evict;
        /** The estimated bytes of the table's whole index when it last asked; 0 when it wants none. */
        private long wanted;
        /** The bytes its index holds; 0 while it holds none. */
        private long held;

        private Share(String table, Runnable evict) {
            this.table = table;
            this.evict = evict;
        }

        /**
         * Asks for room for an index of about {@code estimate} bytes: the most its index may take now (a
         * build stops there), or 0 when it cannot have one (it looks its keys up). Frees what the table
         * holds first. Memory others hold beyond their fair share is taken back when this table's
         * estimate is within its own.
         */
        long roomFor(long estimate) {
            synchronized (KeyIndexBudget.this) {
                release();
                wanted = Math.max(1, estimate);
                long free = bytes - heldByOthers(this);
                if (estimate > free && estimate <= fairShare()) {
                    evictAboveFairShare(this, estimate);
                    free = bytes - heldByOthers(this);
                }
                return estimate <= free ? free : 0;
            }
        }

        /** The table's index now holds {@code indexBytes}, at most what {@link #roomFor} allowed. */
        void hold(long indexBytes) {
            synchronized (KeyIndexBudget.this) {
                long free = bytes - heldByOthers(this);
                if (indexBytes > free) {
                    throw new IllegalStateException("an index of " + indexBytes + " bytes for table " + table
                            + " exceeds the " + free + " bytes free of the key index budget");
                }
                total.addAndGet(indexBytes - held);
                held = indexBytes;
            }
        }

        /**
         * The table's index grew (or shrank) to {@code indexBytes} with a commit: true when it may keep it,
         * taking room from indexes above their fair share when it is within its own; false when it must
         * drop it (it then holds nothing).
         */
        boolean grow(long indexBytes) {
            synchronized (KeyIndexBudget.this) {
                wanted = Math.max(1, indexBytes);
                long free = bytes - heldByOthers(this);
                if (indexBytes > free && indexBytes <= fairShare()) {
                    evictAboveFairShare(this, indexBytes);
                    free = bytes - heldByOthers(this);
                }
                if (indexBytes > free) {
                    release();
                    return false;
                }
                hold(indexBytes);
                return true;
            }
        }

        /** The table holds no index, and wants none until it asks again (its keys are looked up). */
        void release() {
            synchronized (KeyIndexBudget.this) {
                total.addAndGet(-held);
                held = 0;
            }
        }

        /** The table wants no index: it is over its own bound, or gone from this agent. */
        void wantNone() {
            synchronized (KeyIndexBudget.this) {
                release();
                wanted = 0;
            }
        }

        /** The table left this agent (its lease moved, it was turned off): the share is closed. */
        void close() {
            synchronized (KeyIndexBudget.this) {
                wantNone();
                shares.remove(this);
            }
        }

        private void drop() {
            held = 0;
        }
    }
}
