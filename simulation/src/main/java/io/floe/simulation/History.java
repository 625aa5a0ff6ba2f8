package io.floe.simulation;

import io.floe.core.log.TopicPartition;
import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the clients saw: every value sent, every acknowledgement (with the offset it gave), every
 * record a consumer or the checker read at an offset, and the violations found so far (the first
 * of each kind is kept with its step and virtual time).
 */
final class History {

    /** A record's place in the log. */
    record Position(TopicPartition topicPartition, long offset) {}

    private final World world;
    private final Set<String> sent = new LinkedHashSet<>();
    private final Map<String, Position> acked = new HashMap<>();
    private final Map<String, TopicPartition> ackedWithoutOffset = new HashMap<>();
    private final Map<Position, String> observed = new HashMap<>();
    private final Map<String, Position> observedAt = new HashMap<>();
    private final Set<String> consumed = new HashSet<>();
    private final Map<String, List<String>> violations = new java.util.TreeMap<>();
    private final Map<String, Transaction> transactions = new java.util.TreeMap<>();
    private final Map<String, Transaction> transactionOfValue = new HashMap<>();
    private final Map<TopicPartition, Map<Long, String>> readCommitted = new HashMap<>();

    /** What a transactional producer's client knows of how one of its transactions ended. */
    enum Ending {
        /** Open, or given up before a commit was asked: it must end aborted. */
        NOT_COMMITTED,
        /** Commit asked, no answer that it applied: committed or aborted, as a whole. */
        UNKNOWN,
        /** EndTxn(commit) answered done. */
        COMMITTED,
        /** EndTxn(abort) answered done. */
        ABORTED
    }

    /** One transaction of a transactional producer: its values by partition, and how its client saw it end. */
    static final class Transaction {
        final String name;
        final Map<TopicPartition, List<String>> values = new java.util.TreeMap<>(
                java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        Ending ending = Ending.NOT_COMMITTED;
        /** The offset the transaction sent to its producer's group, or -1 when it sent none (or never got to). */
        long offsetSent = -1;

        Transaction(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name + " (" + ending + ")";
        }
    }

    History(World world) {
        this.world = world;
    }

    void sent(String value) {
        sent.add(value);
    }

    void acked(String value, Position position) {
        Position earlier = acked.putIfAbsent(value, position);
        if (earlier != null && !earlier.equals(position)) {
            violation("NoDuplicateAppend", value + " acknowledged at " + earlier + " and again at " + position);
        }
    }

    /** A value acknowledged as a duplicate whose offset the answer did not give. */
    void ackedWithoutOffset(String value, TopicPartition topicPartition) {
        ackedWithoutOffset.put(value, topicPartition);
    }

    /** What {@link #valueOf} gives for a tombstone (a record with a null value). */
    static final String TOMBSTONE = "\u2205";

    /** The value a producer wrote into {@code record} (values are UTF-8 text, "p1-42"); {@link #TOMBSTONE} for none. */
    static String valueOf(StoredRecord record) {
        if (!record.hasValue()) {
            return TOMBSTONE;
        }
        byte[] raw = new byte[record.valueSize()];
        record.value().get(raw);
        return new String(raw, StandardCharsets.UTF_8);
    }

    /** The key of {@code record}, as UTF-8 text; it must have one. */
    static String keyOf(StoredRecord record) {
        ByteBuffer key = record.key().duplicate();
        byte[] raw = new byte[key.remaining()];
        key.get(raw);
        return new String(raw, StandardCharsets.UTF_8);
    }

    /** A value read at a position: it must be the value every earlier read saw there. */
    void observed(Position position, String value, String reader) {
        String earlier = observed.putIfAbsent(position, value);
        observedAt.putIfAbsent(value, position);
        if (earlier != null && !earlier.equals(value)) {
            violation(
                    "ConsistentRead",
                    reader + " read " + value + " at " + position + " where " + earlier + " was read before");
        }
        if (reader.equals("consumer")) {
            consumed.add(value);
        }
    }

    /** A value a transactional producer sent in transaction {@code name}. */
    void sentInTransaction(String name, String value, TopicPartition topicPartition) {
        Transaction transaction = transactions.computeIfAbsent(name, Transaction::new);
        transaction
                .values
                .computeIfAbsent(topicPartition, tp -> new ArrayList<>())
                .add(value);
        transactionOfValue.put(value, transaction);
        sent.add(value);
    }

    /** How the client saw transaction {@code name} end; an ending once known stays. */
    void ended(String name, Ending ending) {
        Transaction transaction = transactions.computeIfAbsent(name, Transaction::new);
        if (transaction.ending == Ending.NOT_COMMITTED || transaction.ending == Ending.UNKNOWN) {
            transaction.ending = ending;
        }
    }

    /** Transaction {@code name} sent {@code offset} to its producer's group (or may have: no answer). */
    void offsetsSent(String name, long offset) {
        transactions.computeIfAbsent(name, Transaction::new).offsetSent = offset;
    }

    /** The transaction a value was sent in, or null for a value sent outside any. */
    Transaction transactionOf(String value) {
        return transactionOfValue.get(value);
    }

    Map<String, Transaction> transactions() {
        return transactions;
    }

    /** How many transactions ended each way as their clients saw it, and how many records read_committed consumers returned. */
    Map<String, Integer> transactionCounts() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        transactions
                .values()
                .forEach(t -> counts.merge(t.ending.name().toLowerCase(java.util.Locale.ROOT), 1, Integer::sum));
        int returned = readCommitted.values().stream().mapToInt(Map::size).sum();
        if (!counts.isEmpty()) {
            counts.put("read_committed records", returned);
        }
        return counts;
    }

    /** A record a read_committed consumer returned to its application. */
    void readCommitted(Position position, String value) {
        observed(position, value, "read_committed consumer");
        readCommitted
                .computeIfAbsent(position.topicPartition(), tp -> new HashMap<>())
                .put(position.offset(), value);
    }

    /** What read_committed consumers returned from {@code topicPartition}, by offset. */
    Map<Long, String> readCommitted(TopicPartition topicPartition) {
        return readCommitted.getOrDefault(topicPartition, Map.of());
    }

    void violation(String invariant, String detail) {
        List<String> found = violations.computeIfAbsent(invariant, name -> new ArrayList<>());
        if (found.size() < 5) {
            found.add(String.format("step %d, t=%.3fs: %s", world.steps(), world.nanoTime() / 1e9, detail));
        } else if (found.size() == 5) {
            found.add("(more)");
        }
    }

    Set<String> sentValues() {
        return sent;
    }

    Map<String, Position> ackedValues() {
        return acked;
    }

    /** The values acknowledged without an offset, with the partition each was sent to. */
    Map<String, TopicPartition> ackedWithoutOffset() {
        return ackedWithoutOffset;
    }

    /** Where a value was first read, if it ever was. */
    Position observedAt(String value) {
        return observedAt.get(value);
    }

    /** The values consumers read through the fetch path. */
    Set<String> consumedValues() {
        return consumed;
    }

    Map<String, List<String>> violations() {
        return violations;
    }
}
