package io.floe.benchmarks.tableflow;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.kafka.common.utils.Utils;

/**
 * The records the Tableflow benchmarks materialize, the same in every driver: JSON events of about
 * {@link #VALUE_BYTES} bytes (7 fields, a nested array, a date-time, a payload string), each keyed by one of
 * {@code keySpace} keys. Record {@code n}'s key is a pseudo-random draw from the key space, so an upsert table
 * of those records gets updates of earlier rows; keys are 16 hex digits spread over the key space like UUIDs.
 * A record goes to the partition Kafka's default partitioner picks for its key, so the in-process driver and a
 * KafkaProducer put the same record in the same partition.
 */
final class EventRecords {

    static final int VALUE_BYTES = 1024;

    /** The value's JSON Schema as Tableflow declares it ({@code at} a date-time: a timestamp column). */
    static final String SCHEMA = """
            {"type": "object", "properties": {
              "id": {"type": "integer"}, "user": {"type": "string"}, "event": {"type": "string"},
              "amount": {"type": "number"}, "at": {"type": "string", "format": "date-time"},
              "tags": {"type": "array", "items": {"type": "string"}}, "payload": {"type": "string"}},
             "required": ["id", "user"]}""";

    /** Mixes record numbers into key draws; fixed, so every run draws the same keys. */
    private static final long SEED = 0x5DEECE66DL;

    private EventRecords() {}

    /** The value of record {@code id}: JSON of about {@link #VALUE_BYTES} bytes. */
    static byte[] value(long id) {
        String head = "{\"id\": " + id + ", \"user\": \"user-" + (id % 1000)
                + "\", \"event\": \"click\", \"amount\": " + (id % 10_000) / 100.0
                + ", \"at\": \"2026-11-30T12:00:00Z\", \"tags\": [\"a\", \"b\"], \"payload\": \"";
        StringBuilder value = new StringBuilder(VALUE_BYTES).append(head);
        while (value.length() < VALUE_BYTES - 2) {
            value.append((char) ('a' + (value.length() + id) % 26));
        }
        return value.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The key of record {@code id} among {@code keySpace} keys. */
    static byte[] key(long id, long keySpace) {
        if (keySpace < 1) {
            throw new IllegalArgumentException("the key space must hold at least one key, not " + keySpace);
        }
        return keyOf(Long.remainderUnsigned(mix(id ^ SEED), keySpace));
    }

    /** Key number {@code keyId} of the key space: distinct numbers give distinct keys. */
    static byte[] keyOf(long keyId) {
        return String.format(Locale.ROOT, "%016x", mix(keyId)).getBytes(StandardCharsets.UTF_8);
    }

    /** The partition Kafka's default partitioner gives {@code key} (murmur2, as a KafkaProducer does). */
    static int partition(byte[] key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    /** MurmurHash3's 64-bit finalizer: a bijection, so distinct key ids keep distinct keys. */
    static long mix(long value) {
        long h = value;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
