package io.floe.kafka.api.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionState;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** EndTxn, and AddOffsetsToTxn which begins what it ends. */
class EndTxnApiTest {

    private final TransactionApiFixture fixture = new TransactionApiFixture();

    @AfterEach
    void closeFixture() {
        fixture.close();
    }

    private final EndTxnApi endTxn = new EndTxnApi(fixture.coordinator);
    private final AddOffsetsToTxnApi addOffsets = new AddOffsetsToTxnApi(fixture.coordinator);

    @Test
    void v4CommitsAtTheSameEpoch() {
        ProducerEpoch producer = fixture.open("tx-1", new TopicPartition("orders", 0));

        EndTxnResponseData response = end(producer, true, 4);

        assertThat(response.errorCode()).isZero();
        assertThat(fixture.store.transaction("tx-1").orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(fixture.store.transaction("tx-1").orElseThrow().producer()).isEqualTo(producer);
    }

    @Test
    void v5BumpsTheEpochAndAnswersIt() {
        ProducerEpoch producer = fixture.init("tx-1");
        assertThat(addOffsets(producer, 4).errorCode()).isZero();

        EndTxnResponseData response = end(producer, false, 5);

        assertThat(response.errorCode()).isZero();
        assertThat(response.producerId()).isEqualTo(producer.producerId());
        assertThat(response.producerEpoch()).isEqualTo((short) (producer.epoch() + 1));
        assertThat(end(producer, false, 5).errorCode())
                .as("a retry of the applied end")
                .isZero();
    }

    @Test
    void endingWithoutAnOpenTransactionIsInvalidTxnState() {
        ProducerEpoch producer = fixture.init("tx-1");

        assertThat(end(producer, true, 4).errorCode()).isEqualTo(Errors.INVALID_TXN_STATE.code());
    }

    @Test
    void aFencedProducerIsFencedByVersion() {
        ProducerEpoch old = fixture.init("tx-1");
        fixture.init("tx-1");

        assertThat(end(old, true, 2).errorCode()).isEqualTo(Errors.PRODUCER_FENCED.code());
        assertThat(end(old, true, 1).errorCode()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
        assertThat(end(old, true, 5).producerId()).isEqualTo(-1);
        assertThat(addOffsets(old, 3).errorCode()).isEqualTo(Errors.PRODUCER_FENCED.code());
        assertThat(addOffsets(old, 1).errorCode()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
    }

    private EndTxnResponseData end(ProducerEpoch producer, boolean commit, int version) {
        return endTxn.handle(
                        TransactionApiFixture.context(ApiKeys.END_TXN, version),
                        new EndTxnRequestData()
                                .setTransactionalId("tx-1")
                                .setProducerId(producer.producerId())
                                .setProducerEpoch(producer.epoch())
                                .setCommitted(commit))
                .toCompletableFuture()
                .join();
    }

    private AddOffsetsToTxnResponseData addOffsets(ProducerEpoch producer, int version) {
        return addOffsets
                .handle(
                        TransactionApiFixture.context(ApiKeys.ADD_OFFSETS_TO_TXN, version),
                        new AddOffsetsToTxnRequestData()
                                .setTransactionalId("tx-1")
                                .setProducerId(producer.producerId())
                                .setProducerEpoch(producer.epoch())
                                .setGroupId("group-1"))
                .toCompletableFuture()
                .join();
    }
}
