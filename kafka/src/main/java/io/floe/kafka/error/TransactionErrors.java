package io.floe.kafka.error;

import io.floe.agent.transaction.InvalidTransactionRequestException;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.transaction.TransactionOutcome;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The one mapping from the transaction coordinator's outcomes and failures, and from the store's
 * refusals of transactional batches, to Kafka's errors. What kafka-clients' TransactionManager
 * expects decides it: PRODUCER_FENCED (fatal to the producer) only where the API version knows it,
 * else INVALID_PRODUCER_EPOCH, which clients treat alike; a retriable store failure is
 * COORDINATOR_NOT_AVAILABLE, which every transactional client retries after looking the coordinator
 * up again (the store's operations are safe to retry: a retry of an applied one meets it as done or
 * as a newer epoch).
 */
public final class TransactionErrors {

    /** The first versions whose clients know TRANSACTION_ABORTABLE (KIP-890). */
    private static final short PRODUCE_TRANSACTION_ABORTABLE_VERSION = 11;

    private static final short TXN_OFFSET_COMMIT_TRANSACTION_ABORTABLE_VERSION = 4;
    private static final short ADD_PARTITIONS_TRANSACTION_ABORTABLE_VERSION = 5;

    private TransactionErrors() {}

    /**
     * The error of {@code outcome} in a response of {@code api} at {@code version}; NONE when it
     * applied. PRODUCER_FENCED exists in InitProducerId from v4 and in AddPartitionsToTxn,
     * AddOffsetsToTxn and EndTxn from v2 (INVALID_PRODUCER_EPOCH before, which clients treat alike);
     * WriteTxnMarkers answers a fenced marker INVALID_PRODUCER_EPOCH as a Kafka partition leader does.
     * TxnOffsetCommit answers a transaction that is not open TRANSACTION_ABORTABLE from v4 (its clients
     * abort on it; INVALID_TXN_STATE would be fatal to them), INVALID_TXN_STATE before.
     */
    public static Errors of(TransactionOutcome outcome, ApiKeys api, short version) {
        if (outcome instanceof TransactionOutcome.UnknownPartitions) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (!(outcome instanceof TransactionOutcome.Refused refused)) {
            return Errors.NONE;
        }
        return switch (refused.error()) {
            case PRODUCER_FENCED ->
                version >= firstVersionWithProducerFenced(api) ? Errors.PRODUCER_FENCED : Errors.INVALID_PRODUCER_EPOCH;
            case INVALID_PRODUCER_EPOCH -> Errors.INVALID_PRODUCER_EPOCH;
            case INVALID_PRODUCER_ID_MAPPING -> Errors.INVALID_PRODUCER_ID_MAPPING;
            case INVALID_TXN_STATE ->
                api == ApiKeys.TXN_OFFSET_COMMIT && version >= TXN_OFFSET_COMMIT_TRANSACTION_ABORTABLE_VERSION
                        ? Errors.TRANSACTION_ABORTABLE
                        : Errors.INVALID_TXN_STATE;
            case UNKNOWN_TOPIC_OR_PARTITION -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
            case NOT_COORDINATOR -> Errors.NOT_COORDINATOR;
        };
    }

    /**
     * AddPartitionsToTxn's verify-only answer for a partition that is not in the transaction:
     * TRANSACTION_ABORTABLE from v5, INVALID_TXN_STATE at v4, as Kafka's coordinator answers.
     */
    public static Errors notInTransaction(short addPartitionsVersion) {
        return addPartitionsVersion >= ADD_PARTITIONS_TRANSACTION_ABORTABLE_VERSION
                ? Errors.TRANSACTION_ABORTABLE
                : Errors.INVALID_TXN_STATE;
    }

    private static short firstVersionWithProducerFenced(ApiKeys api) {
        return switch (api) {
            case INIT_PRODUCER_ID -> 4;
            case ADD_PARTITIONS_TO_TXN, ADD_OFFSETS_TO_TXN, END_TXN -> 2;
            case TXN_OFFSET_COMMIT -> 0;
            default -> Short.MAX_VALUE;
        };
    }

    /**
     * The answer to a transactional batch the store refused: INVALID_PRODUCER_EPOCH for a fenced
     * producer (clients abort the transaction on it and learn of the fence from EndTxn, KIP-588), and
     * for a batch its transaction does not admit TRANSACTION_ABORTABLE from Produce v11 (the client
     * aborts and goes on), INVALID_TXN_STATE before, as Kafka's broker answers. Idempotent producers'
     * fenced batches get INVALID_PRODUCER_EPOCH too. Only for those two errors.
     */
    public static Errors ofTransactionalAppend(AppendError error, short produceVersion) {
        return switch (error) {
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case INVALID_TXN_STATE ->
                produceVersion >= PRODUCE_TRANSACTION_ABORTABLE_VERSION
                        ? Errors.TRANSACTION_ABORTABLE
                        : Errors.INVALID_TXN_STATE;
            default -> throw new IllegalArgumentException("not a transaction refusal: " + error);
        };
    }

    /** The Kafka exception a transactional client should get for a failure of the coordinator or the store. */
    public static ApiException failure(Throwable failure) {
        Throwable cause = KafkaErrors.unwrap(failure);
        if (cause instanceof InvalidTransactionRequestException invalid) {
            return invalidRequest(invalid);
        } else if (cause instanceof MetadataStoreException store && store.retriable()) {
            return new CoordinatorNotAvailableException(
                    "the transaction coordinator cannot reach its metadata store: " + store.getMessage());
        }
        return KafkaErrors.toApiException(cause);
    }

    /** INVALID_REQUEST or INVALID_TRANSACTION_TIMEOUT, by the coordinator's reason. */
    static ApiException invalidRequest(InvalidTransactionRequestException invalid) {
        return switch (invalid.reason()) {
            case INVALID_REQUEST -> new InvalidRequestException(invalid.getMessage());
            case INVALID_TRANSACTION_TIMEOUT -> new InvalidTxnTimeoutException(invalid.getMessage());
        };
    }
}
