package io.floe.kafka.error;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.transaction.InvalidTransactionRequestException;
import io.floe.agent.transaction.InvalidTransactionRequestException.Reason;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class TransactionErrorsTest {

    private static final TransactionOutcome FENCED =
            new TransactionOutcome.Refused(TransactionError.PRODUCER_FENCED, "fenced");
    private static final TransactionOutcome NOT_OPEN =
            new TransactionOutcome.Refused(TransactionError.INVALID_TXN_STATE, "not open");

    @Test
    void producerFencedOnlyWhereTheVersionKnowsIt() {
        assertThat(TransactionErrors.of(FENCED, ApiKeys.INIT_PRODUCER_ID, (short) 4))
                .isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(TransactionErrors.of(FENCED, ApiKeys.INIT_PRODUCER_ID, (short) 3))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(TransactionErrors.of(FENCED, ApiKeys.END_TXN, (short) 2)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(TransactionErrors.of(FENCED, ApiKeys.END_TXN, (short) 1)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(TransactionErrors.of(FENCED, ApiKeys.TXN_OFFSET_COMMIT, (short) 0))
                .isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(TransactionErrors.of(FENCED, ApiKeys.WRITE_TXN_MARKERS, (short) 1))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    }

    @Test
    void aTransactionThatIsNotOpenIsAbortableForTxnOffsetCommitFromV4() {
        assertThat(TransactionErrors.of(NOT_OPEN, ApiKeys.TXN_OFFSET_COMMIT, (short) 4))
                .isEqualTo(Errors.TRANSACTION_ABORTABLE);
        assertThat(TransactionErrors.of(NOT_OPEN, ApiKeys.TXN_OFFSET_COMMIT, (short) 3))
                .isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(TransactionErrors.of(NOT_OPEN, ApiKeys.END_TXN, (short) 5)).isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(TransactionErrors.notInTransaction((short) 5)).isEqualTo(Errors.TRANSACTION_ABORTABLE);
        assertThat(TransactionErrors.notInTransaction((short) 4)).isEqualTo(Errors.INVALID_TXN_STATE);
    }

    @Test
    void doneIsNoneAndUnknownPartitionsAreUnknown() {
        assertThat(TransactionErrors.of(
                        new TransactionOutcome.Done(new ProducerEpoch(1, (short) 0)), ApiKeys.END_TXN, (short) 5))
                .isEqualTo(Errors.NONE);
        assertThat(TransactionErrors.of(
                        new TransactionOutcome.UnknownPartitions(Set.of(new TopicPartition("t", 0))),
                        ApiKeys.ADD_PARTITIONS_TO_TXN,
                        (short) 3))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void transactionalBatchesAreRefusedAsTheJavaClientExpectsByProduceVersion() {
        assertThat(TransactionErrors.ofTransactionalAppend(AppendError.PRODUCER_FENCED, (short) 12))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(TransactionErrors.ofTransactionalAppend(AppendError.INVALID_TXN_STATE, (short) 11))
                .isEqualTo(Errors.TRANSACTION_ABORTABLE);
        assertThat(TransactionErrors.ofTransactionalAppend(AppendError.INVALID_TXN_STATE, (short) 10))
                .isEqualTo(Errors.INVALID_TXN_STATE);
    }

    @Test
    void failuresAreRetriableForTransactionalClients() {
        assertThat(Errors.forException(
                        TransactionErrors.failure(new MetadataStoreException("connection lost", true, null))))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(Errors.forException(TransactionErrors.failure(
                        new InvalidTransactionRequestException(Reason.INVALID_TRANSACTION_TIMEOUT, "too long"))))
                .isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        assertThat(KafkaErrors.errorOf(new InvalidTransactionRequestException(Reason.INVALID_REQUEST, "no id")))
                .isEqualTo(Errors.INVALID_REQUEST);
    }
}
