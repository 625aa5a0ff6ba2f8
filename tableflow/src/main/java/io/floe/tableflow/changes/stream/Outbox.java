package io.floe.tableflow.changes.stream;

import java.util.Map;
import java.util.TreeMap;

/**
 * The records of one transaction on their way to the change topic, each partition's newest held back
 * until the next one comes or the transaction ends, so that the last record the transaction writes to
 * each partition carries its progress ({@link Progress#HEADER}) and no other record pays for it.
 */
final class Outbox {

    private record Held(byte[] key, byte[] value) {}

    private final StreamLink.Transactions producer;
    private final String topic;
    private final Map<Integer, Held> held = new TreeMap<>();
    private long events;

    Outbox(StreamLink.Transactions producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    void send(int partition, byte[] key, byte[] value) {
        Held before = held.put(partition, new Held(key, value));
        if (before != null) {
            producer.send(topic, partition, before.key(), before.value(), null);
        }
        if (value != null) {
            events++;
        }
    }

    /** Sends the held records with {@code progress} in their header. */
    void flush(String progress) {
        held.forEach((partition, last) -> producer.send(topic, partition, last.key(), last.value(), progress));
        held.clear();
    }

    /** How many change events (records that are no tombstone) were sent or are held. */
    long events() {
        return events;
    }
}
