package io.floe.tableflow.changes.stream;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What a change stream needs of Kafka, and no more: transactional producers, the stream's group
 * offsets, its change topic's creation, and two reads of that topic. {@link KafkaLink} is the one
 * implementation that talks to Kafka (the agent's own listener, through kafka-clients); a simulation
 * may put its own under the streams. Calls block; failures are unchecked.
 */
interface StreamLink extends AutoCloseable {

    /** Whether Kafka can be reached yet (the agent's listener starts after Tableflow). */
    boolean ready();

    /**
     * A producer of {@code transactionalId}, initialized: every earlier producer of the id is fenced and
     * the transaction it left open is ended (aborted, or completed when its commit had begun).
     */
    Transactions transactions(String transactionalId);

    /** The offsets {@code group} committed, waiting out pending transactional ones (require_stable). */
    Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group);

    /**
     * The partition count of topic {@code name} once it has at least {@code partitions}: created with that
     * many (compacted when {@code compacted}) when missing, grown when it has fewer.
     */
    int ensureTopic(String name, int partitions, boolean compacted);

    /**
     * Each partition's end for read_committed consumers (its last stable offset) and the {@link
     * Progress#HEADER} of the committed record just before that end's marker (at end - 2), when there is
     * one; empty when the topic does not exist.
     */
    List<PartitionEnd> ends(String name);

    /** One partition's end and the progress its last transaction's last record carries. */
    record PartitionEnd(int partition, long endOffset, Optional<String> lastProgress) {}

    /** Reads every committed record of topic {@code name} from its start to its end as of the call. */
    void scan(String name, RecordVisitor visitor);

    /** One record of a {@link #scan}. */
    @FunctionalInterface
    interface RecordVisitor {
        void record(int partition, long offset, byte[] key, byte[] value);
    }

    /** Whether {@code failure} says another producer of the transactional id took over. */
    boolean fenced(Throwable failure);

    @Override
    void close();

    /** One initialized transactional producer. Not thread-safe. */
    interface Transactions extends AutoCloseable {

        void begin();

        /** Sends a record of the open transaction; {@code progress} (may be null) goes in {@link Progress#HEADER}. */
        void send(String topic, int partition, byte[] key, byte[] value, String progress);

        /** Adds {@code offsets} of {@code group} to the open transaction and commits it. */
        void commit(String group, Map<TopicPartition, OffsetAndMetadata> offsets);

        /** Aborts the open transaction. */
        void abort();

        @Override
        void close();
    }
}
