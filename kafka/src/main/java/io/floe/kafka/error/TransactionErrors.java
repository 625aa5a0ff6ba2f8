package io.floe.kafka.error;

import io.floe.agent.transaction.InvalidTransactionRequestException;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;
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

    /** The first Produce version whose clients know TRANSACTION_ABORTABLE (KIP-890). */
    private static final short PRODUCE_TRANSACTION_ABORTABLE_VERSION = 11;

    private TransactionErrors() {}

    /**
     * The error of {@code outcome} for an API whose version knows PRODUCER_FENCED when
     * {@code producerFencedKnown}; NONE when it applied.
     */
    public static Errors of(TransactionOutcome outcome, boolean producerFencedKnown) {
        if (outcome instanceof TransactionOutcome.Refused refused) {
            return of(refused.error(), producerFencedKnown);
        } else if (outcome instanceof TransactionOutcome.UnknownPartitions) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return Errors.NONE;
    }

    /** The wire error of a store refusal. */
    public static Errors of(TransactionError error, boolean producerFencedKnown) {
        return switch (error) {
            case PRODUCER_FENCED -> producerFencedKnown ? Errors.PRODUCER_FENCED : Errors.INVALID_PRODUCER_EPOCH;
            case INVALID_PRODUCER_EPOCH -> Errors.INVALID_PRODUCER_EPOCH;
            case INVALID_PRODUCER_ID_MAPPING -> Errors.INVALID_PRODUCER_ID_MAPPING;
            case INVALID_TXN_STATE -> Errors.INVALID_TXN_STATE;
            case UNKNOWN_TOPIC_OR_PARTITION -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
        };
    }

    /** {@link #of(TransactionOutcome, boolean)} as an exception, with the store's message when it has one. */
    public static ApiException exception(TransactionOutcome outcome, boolean producerFencedKnown) {
        Errors error = of(outcome, producerFencedKnown);
        return outcome instanceof TransactionOutcome.Refused refused
                ? error.exception(refused.message())
                : error.exception(
                        "unknown partitions " + ((TransactionOutcome.UnknownPartitions) outcome).partitions());
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
