package io.floe.core.object;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fresh, never reused segment keys: {@code segments/<2 hex>/<millis>-<incarnation>-<counter>.seg}.
 * The two hex digits spread keys over S3 partitions; the rest sorts by time. The incarnation (writer
 * id and start time) keeps keys of restarted or concurrent writers (agents, compaction) apart.
 */
public final class ObjectKeys {

    private static final Pattern SEGMENT_KEY = Pattern.compile("segments/[0-9a-f]{2}/(\\d{13})-.*\\.seg");

    private final Clock clock;
    private final String incarnation;
    private final AtomicLong counter = new AtomicLong();

    public ObjectKeys(Clock clock, String agentId) {
        this.clock = clock;
        this.incarnation = agentId.replaceAll("[^A-Za-z0-9_-]", "_") + "-" + Long.toString(clock.millis(), 36);
    }

    public ObjectKey next() {
        String id = String.format("%013d-%s-%08d", clock.millis(), incarnation, counter.incrementAndGet());
        int spread = (id.hashCode() * 0x9E3779B1) >>> 24;
        return new ObjectKey(String.format("segments/%02x/%s.seg", spread, id));
    }

    /**
     * When the writer made {@code key}, by its clock, read from the key itself; empty for a key this
     * class did not make. Jobs use it to leave young objects alone without a metadata read.
     */
    public static Optional<Instant> createdAt(ObjectKey key) {
        Matcher matcher = SEGMENT_KEY.matcher(key.value());
        return matcher.matches()
                ? Optional.of(Instant.ofEpochMilli(Long.parseLong(matcher.group(1))))
                : Optional.empty();
    }
}
