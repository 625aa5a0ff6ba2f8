package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.metadata.ProducerState;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Builds what the produce path hands a metadata store: registered uploads and batches with distinct
 * byte ranges. Thread-safe, so concurrent tests can share one.
 */
public final class ProduceFixture {

    public static final String AGENT_ID = "agent-test";
    public static final int BATCH_BYTES = 100;
    public static final long DEFAULT_TIMESTAMP = 1_700_000_000_000L;

    private final LogAppends store;
    /** Keeps object keys of fixtures on the same store (a store reopened, say) apart. */
    private final String keyPrefix = UUID.randomUUID().toString().substring(0, 8);

    private final AtomicLong objects = new AtomicLong();
    private final AtomicLong positions = new AtomicLong();

    public ProduceFixture(LogAppends store) {
        this.store = store;
    }

    /** A fresh object key, registered for upload. */
    public ObjectKey registerUpload() {
        long number = objects.incrementAndGet();
        ObjectKey key = new ObjectKey(String.format("segments/%02x/%s-%d.seg", number % 256, keyPrefix, number));
        store.registerUpload(key, AGENT_ID, Instant.ofEpochMilli(DEFAULT_TIMESTAMP));
        return key;
    }

    /** A batch from a non-idempotent producer. */
    public BatchAppend batch(Topic topic, int partition, int records) {
        return batch(topic, partition, records, DEFAULT_TIMESTAMP);
    }

    public BatchAppend batch(Topic topic, int partition, int records, long maxTimestamp) {
        return new BatchAppend(
                new TopicPartition(topic.name(), partition),
                topic.id(),
                nextRange(),
                records,
                maxTimestamp,
                ProducerState.NONE);
    }

    /** A batch from an idempotent producer; its last sequence follows from the record count, wrapping like Kafka's. */
    public BatchAppend idempotent(
            Topic topic, int partition, long producerId, int epoch, int baseSequence, int records) {
        int lastSequence = (int) ((baseSequence + (long) records - 1) % (Integer.MAX_VALUE + 1L));
        ProducerState producer = new ProducerState(producerId, (short) epoch, baseSequence, lastSequence);
        return new BatchAppend(
                new TopicPartition(topic.name(), partition),
                topic.id(),
                nextRange(),
                records,
                DEFAULT_TIMESTAMP,
                producer);
    }

    /** A batch of {@code producer}'s transaction, checked against it as {@code mode} says. */
    public BatchAppend transactional(
            Topic topic,
            int partition,
            ProducerEpoch producer,
            int baseSequence,
            int records,
            TransactionalAppend mode) {
        BatchAppend idempotent =
                idempotent(topic, partition, producer.producerId(), producer.epoch(), baseSequence, records);
        return new BatchAppend(
                idempotent.topicPartition(),
                idempotent.topicId(),
                idempotent.range(),
                records,
                idempotent.maxTimestamp(),
                idempotent.producer(),
                mode);
    }

    /** Registers an upload, commits {@code batches} in it and returns the per-batch results. */
    public List<AppendResult> commit(BatchAppend... batches) {
        CommitOutcome outcome = commit(registerUpload(), batches);
        assertThat(outcome).isInstanceOf(CommitOutcome.Committed.class);
        List<AppendResult> results = ((CommitOutcome.Committed) outcome).results();
        assertThat(results).hasSize(batches.length);
        return results;
    }

    /** Commits {@code batches} as the content of {@code object}, whatever its registration. */
    public CommitOutcome commit(ObjectKey object, BatchAppend... batches) {
        return store.commit(new ObjectCommit(object, (long) batches.length * BATCH_BYTES, List.of(batches)));
    }

    private ByteRange nextRange() {
        return new ByteRange(positions.getAndAdd(BATCH_BYTES), BATCH_BYTES);
    }
}
