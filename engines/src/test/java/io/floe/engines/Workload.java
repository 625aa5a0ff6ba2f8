package io.floe.engines;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a lifecycle test produces to its topic, and the rows that the produced records imply: one
 * implementation per table kind. Not thread-safe: one thread makes the waves at a time.
 */
sealed interface Workload permits AppendWorkload, UpsertWorkload {

    /** The Kafka columns every lifecycle comparison reads (headers are compared by {@code SparkReadIT}'s first test). */
    List<String> KAFKA_COLUMNS = List.of("kafka_partition", "kafka_offset", "kafka_timestamp", "kafka_key");

    /** One record to produce: its key, and its value's fields or null for a tombstone. */
    record Change(String key, Map<String, Object> value) {}

    /** A record as the log took it: where it is, its timestamp, and what it said. */
    record Produced(int partition, long offset, Instant timestamp, Change change) {}

    String topic();

    /** The topic configs of this kind of table beyond those every lifecycle table has. */
    Map<String, String> configs();

    /** The value schema the topic starts with (JSON Schema). */
    String schema();

    /** The schema with one more field, which the table's older rows read as null. */
    String grownSchema();

    /** The columns compared, in order: Kafka's, then the value's (with the added field once grown). */
    List<String> columns(boolean grown);

    /** The next wave of records; once grown, values carry the added field (most of them). */
    List<Change> wave(boolean grown);

    /** A wave of records that only add rows (no updates or deletes). */
    List<Change> inserts(boolean grown);

    /** The rows the table holds after {@code produced}, each as {@link RowText} makes it of {@code columns}. */
    List<String> expectedRows(List<Produced> produced, List<String> columns);

    /** The value of {@code column} in a produced record's row: its Kafka metadata or its value's field. */
    static Object column(Produced record, String column) {
        return switch (column) {
            case "kafka_partition" -> record.partition();
            case "kafka_offset" -> record.offset();
            case "kafka_timestamp" -> record.timestamp();
            case "kafka_key" -> record.change().key();
            default -> record.change().value().get(column);
        };
    }
}
