package io.floe.agent.transaction;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far each partition's last stable offset lags its high watermark: the offsets a read_committed
 * reader cannot see yet because a transaction is open. Measured from the store (one read for every
 * partition with an open transaction) for the partitions this agent leads, so that the agents of a
 * cluster report each partition once. A partition with no open transaction has no row (its lag is 0).
 */
public final class StableOffsetLag {

    private static final Logger LOGGER = LoggerFactory.getLogger(StableOffsetLag.class);

    private final LogReads store;
    private final Predicate<TopicPartition> ledHere;
    private final MultiGauge lag;
    private final AtomicLong maxLag = new AtomicLong();

    public StableOffsetLag(LogReads store, Predicate<TopicPartition> ledHere, MeterRegistry meters) {
        this.store = Objects.requireNonNull(store, "store");
        this.ledHere = Objects.requireNonNull(ledHere, "ledHere");
        this.lag = MultiGauge.builder("floe.partition.lso.lag")
                .description("Offsets between the high watermark and the last stable offset, for each partition"
                        + " this agent leads that has an open transaction")
                .register(meters);
        Gauge.builder("floe.partition.lso.lag.max", maxLag, AtomicLong::get)
                .description("The largest lso.lag of the partitions this agent leads (0: no open transaction)")
                .register(meters);
    }

    /** Reads the store and replaces every row; on a store failure the rows of the last read stay. */
    public void measure() {
        Map<TopicPartition, LogOffsets> unstable;
        try {
            unstable = store.unstableLogs();
        } catch (RuntimeException e) {
            LOGGER.debug("cannot read the partitions with open transactions: {}", e.toString());
            return;
        }
        List<Map.Entry<TopicPartition, LogOffsets>> led = unstable.entrySet().stream()
                .filter(entry -> ledHere.test(entry.getKey()))
                .toList();
        lag.register(
                led.stream()
                        .map(entry -> MultiGauge.Row.of(
                                Tags.of(
                                        "topic",
                                        entry.getKey().topic(),
                                        "partition",
                                        Integer.toString(entry.getKey().partition())),
                                lagOf(entry.getValue())))
                        .toList(),
                true);
        maxLag.set(
                led.stream().mapToLong(entry -> lagOf(entry.getValue())).max().orElse(0));
    }

    private static long lagOf(LogOffsets offsets) {
        return offsets.highWatermark() - offsets.lastStableOffset();
    }
}
