package io.floe.agent.produce;

import io.floe.agent.produce.InvalidBatchException.Reason;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ProducerState;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.record.RecordIterator;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import org.apache.kafka.common.KafkaException;

/**
 * Checks what a producer sent for one partition before it may reach storage: exactly one magic v2
 * batch, its size within max.message.bytes, its CRC, and its records (count and offset deltas, which
 * means decompressing them, as Kafka's broker does; on a compacted topic every record needs a key),
 * and its transactional attribute: control batches are refused (only the store makes markers), and a
 * transactional batch needs a producer id and a request with a transactional id. Pure; safe from any
 * thread.
 */
final class BatchValidator {

    private BatchValidator() {}

    static ValidatedBatch validate(TopicPartition topicPartition, ByteBuffer records, int maxMessageBytes) {
        return validate(topicPartition, records, maxMessageBytes, false, TransactionalAppend.NONE);
    }

    /**
     * {@code keysRequired}: the topic is compacted, where a record without a key is refused, as Kafka does.
     * {@code transactional}: how a transactional batch joins its transaction, {@code NONE} when the
     * request has no transactional id.
     */
    static ValidatedBatch validate(
            TopicPartition topicPartition,
            ByteBuffer records,
            int maxMessageBytes,
            boolean keysRequired,
            TransactionalAppend transactional) {
        int size = records.remaining();
        if (size > maxMessageBytes) {
            throw new InvalidBatchException(
                    Reason.MESSAGE_TOO_LARGE,
                    "batch of " + size + " bytes exceeds max.message.bytes " + maxMessageBytes + " for "
                            + topicPartition);
        }
        StoredBatch batch = singleBatch(topicPartition, records);
        if (batch.magic() != StoredBatch.MAGIC_V2) {
            throw new InvalidBatchException(
                    Reason.INVALID_RECORD,
                    "record batch magic " + batch.magic() + " is not supported (only v2) for " + topicPartition);
        }
        try {
            batch.ensureValid();
        } catch (KafkaException e) {
            throw new InvalidBatchException(Reason.CORRUPT_MESSAGE, e.getMessage() + " for " + topicPartition);
        }
        TransactionalAppend transaction = transactionOf(topicPartition, batch, transactional);
        int recordCount = checkRecords(topicPartition, batch, keysRequired);
        ProducerState producer = batch.hasProducerId()
                ? new ProducerState(
                        batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.lastSequence())
                : ProducerState.NONE;
        return new ValidatedBatch(records.slice(), recordCount, batch.maxTimestamp(), producer, transaction);
    }

    private static TransactionalAppend transactionOf(
            TopicPartition topicPartition, StoredBatch batch, TransactionalAppend transactional) {
        if (batch.isControlBatch()) {
            throw new InvalidBatchException(
                    Reason.INVALID_RECORD,
                    "clients may not produce control batches (transaction markers are written by ending the"
                            + " transaction), for " + topicPartition);
        }
        if (!batch.isTransactional()) {
            return TransactionalAppend.NONE;
        }
        if (transactional == TransactionalAppend.NONE) {
            throw new InvalidBatchException(
                    Reason.INVALID_RECORD,
                    "a transactional batch needs the produce request's transactional id, for " + topicPartition);
        }
        if (!batch.hasProducerId()) {
            throw new InvalidBatchException(
                    Reason.INVALID_RECORD, "a transactional batch needs a producer id, for " + topicPartition);
        }
        return transactional;
    }

    private static StoredBatch singleBatch(TopicPartition topicPartition, ByteBuffer records) {
        try {
            StoredBatch batch = StoredBatch.firstOrNull(records);
            if (batch == null) {
                throw new InvalidBatchException(
                        Reason.CORRUPT_MESSAGE,
                        "no complete record batch in " + records.remaining() + " bytes for " + topicPartition);
            }
            if (batch.sizeInBytes() != records.remaining()) {
                throw new InvalidBatchException(
                        Reason.INVALID_RECORD,
                        "produce requests must hold exactly one record "
                                + "batch per partition; got " + records.remaining()
                                + " bytes of which the first batch is "
                                + batch.sizeInBytes() + " for " + topicPartition);
            }
            return batch;
        } catch (KafkaException e) {
            throw new InvalidBatchException(Reason.CORRUPT_MESSAGE, e.getMessage() + " for " + topicPartition);
        }
    }

    private static int checkRecords(TopicPartition topicPartition, StoredBatch batch, boolean keysRequired) {
        Integer declared = batch.countOrNull();
        long lastOffsetDelta = batch.lastOffset() - batch.baseOffset();
        if (declared == null || declared < 1 || lastOffsetDelta != declared - 1) {
            throw new InvalidBatchException(
                    Reason.INVALID_RECORD,
                    "record count " + declared + " does not match last offset delta " + lastOffsetDelta + " for "
                            + topicPartition);
        }
        int seen = 0;
        try (RecordIterator records = batch.recordsWithoutKeysOrValues()) {
            while (records.hasNext()) {
                StoredRecord record = records.next();
                if (record.offset() - batch.baseOffset() != seen) {
                    throw new InvalidBatchException(
                            Reason.INVALID_RECORD,
                            "record " + seen + " has offset delta " + (record.offset() - batch.baseOffset()) + " for "
                                    + topicPartition);
                }
                if (keysRequired && !record.hasKey()) {
                    throw new InvalidBatchException(
                            Reason.INVALID_RECORD,
                            "Compacted topic cannot accept message" + " without key: record " + seen
                                    + " of the batch has none, for " + topicPartition);
                }
                seen++;
            }
        } catch (KafkaException | IllegalArgumentException | IllegalStateException e) {
            throw new InvalidBatchException(
                    Reason.CORRUPT_MESSAGE, "unreadable records: " + e.getMessage() + " for " + topicPartition);
        }
        if (seen != declared) {
            throw new InvalidBatchException(
                    Reason.INVALID_RECORD,
                    "batch declares " + declared + " records but holds " + seen + " for " + topicPartition);
        }
        return seen;
    }
}
