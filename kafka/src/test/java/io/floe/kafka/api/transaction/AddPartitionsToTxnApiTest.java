package io.floe.kafka.api.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AddPartitionsToTxnApiTest {

    private final TransactionApiFixture fixture = new TransactionApiFixture();

    @AfterEach
    void closeFixture() {
        fixture.close();
    }

    private final AddPartitionsToTxnApi api = new AddPartitionsToTxnApi(fixture.coordinator);

    @Test
    void v3AddsThePartitionsToTheProducersTransaction() {
        ProducerEpoch producer = fixture.init("tx-1");

        Map<org.apache.kafka.common.TopicPartition, Errors> errors =
                errorsV3(single("tx-1", producer, topic("orders", 0, 1)), 3);

        assertThat(errors).containsOnlyKeys(kafka("orders", 0), kafka("orders", 1));
        assertThat(errors.values()).containsOnly(Errors.NONE);
        assertThat(fixture.store.transaction("tx-1").orElseThrow().partitions())
                .containsExactlyInAnyOrder(new TopicPartition("orders", 0), new TopicPartition("orders", 1));
    }

    @Test
    void anUnknownPartitionAddsNoneAndTheOthersAreNotAttempted() {
        ProducerEpoch producer = fixture.init("tx-1");

        Map<org.apache.kafka.common.TopicPartition, Errors> errors =
                errorsV3(single("tx-1", producer, topic("orders", 0), topic("nope", 0)), 3);

        assertThat(errors)
                .containsEntry(kafka("orders", 0), Errors.OPERATION_NOT_ATTEMPTED)
                .containsEntry(kafka("nope", 0), Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(fixture.store.transaction("tx-1").orElseThrow().partitions()).isEmpty();
    }

    @Test
    void aFencedProducerIsProducerFencedFromV2AndInvalidProducerEpochBefore() {
        ProducerEpoch old = fixture.init("tx-1");
        fixture.init("tx-1");

        assertThat(errorsV3(single("tx-1", old, topic("orders", 0)), 2).values())
                .containsOnly(Errors.PRODUCER_FENCED);
        assertThat(errorsV3(single("tx-1", old, topic("orders", 0)), 1).values())
                .containsOnly(Errors.INVALID_PRODUCER_EPOCH);
    }

    @Test
    void batchedVerifyOnlyAnswersFromTheStoredTransactionWithoutAdding() {
        ProducerEpoch producer = fixture.open("tx-1", new TopicPartition("orders", 0));
        AddPartitionsToTxnTransactionCollection transactions = new AddPartitionsToTxnTransactionCollection();
        transactions.add(transaction("tx-1", producer, true, topic("orders", 0, 1)));
        transactions.add(transaction("tx-unknown", producer, true, topic("orders", 0)));

        AddPartitionsToTxnResponseData v5 = call(new AddPartitionsToTxnRequestData().setTransactions(transactions), 5);

        Map<String, Map<org.apache.kafka.common.TopicPartition, Errors>> errors =
                new AddPartitionsToTxnResponse(v5).errors();
        assertThat(errors.get("tx-1"))
                .containsEntry(kafka("orders", 0), Errors.NONE)
                .containsEntry(kafka("orders", 1), Errors.TRANSACTION_ABORTABLE);
        assertThat(errors.get("tx-unknown")).containsValue(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(fixture.store.transaction("tx-1").orElseThrow().partitions())
                .containsExactly(new TopicPartition("orders", 0));

        AddPartitionsToTxnResponseData v4 = call(new AddPartitionsToTxnRequestData().setTransactions(transactions), 4);
        assertThat(new AddPartitionsToTxnResponse(v4).errors().get("tx-1"))
                .containsEntry(kafka("orders", 1), Errors.INVALID_TXN_STATE);
    }

    @Test
    void batchedWithoutVerifyOnlyAdds() {
        ProducerEpoch producer = fixture.init("tx-1");
        AddPartitionsToTxnTransactionCollection transactions = new AddPartitionsToTxnTransactionCollection();
        transactions.add(transaction("tx-1", producer, false, topic("orders", 2)));

        AddPartitionsToTxnResponseData response =
                call(new AddPartitionsToTxnRequestData().setTransactions(transactions), 5);

        assertThat(response.errorCode()).isZero();
        assertThat(new AddPartitionsToTxnResponse(response).errors().get("tx-1"))
                .containsValue(Errors.NONE);
        assertThat(fixture.store.transaction("tx-1").orElseThrow().partitions())
                .containsExactly(new TopicPartition("orders", 2));
    }

    private Map<org.apache.kafka.common.TopicPartition, Errors> errorsV3(
            AddPartitionsToTxnRequestData request, int version) {
        return new AddPartitionsToTxnResponse(call(request, version))
                .errors()
                .get(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID);
    }

    private AddPartitionsToTxnResponseData call(AddPartitionsToTxnRequestData request, int version) {
        return api.handle(TransactionApiFixture.context(ApiKeys.ADD_PARTITIONS_TO_TXN, version), request)
                .toCompletableFuture()
                .join();
    }

    private static AddPartitionsToTxnRequestData single(
            String id, ProducerEpoch producer, AddPartitionsToTxnTopic... topics) {
        return new AddPartitionsToTxnRequestData()
                .setV3AndBelowTransactionalId(id)
                .setV3AndBelowProducerId(producer.producerId())
                .setV3AndBelowProducerEpoch(producer.epoch())
                .setV3AndBelowTopics(
                        new AddPartitionsToTxnTopicCollection(List.of(topics).iterator()));
    }

    private static AddPartitionsToTxnTransaction transaction(
            String id, ProducerEpoch producer, boolean verifyOnly, AddPartitionsToTxnTopic... topics) {
        return new AddPartitionsToTxnTransaction()
                .setTransactionalId(id)
                .setProducerId(producer.producerId())
                .setProducerEpoch(producer.epoch())
                .setVerifyOnly(verifyOnly)
                .setTopics(new AddPartitionsToTxnTopicCollection(List.of(topics).iterator()));
    }

    private static AddPartitionsToTxnTopic topic(String name, Integer... partitions) {
        return new AddPartitionsToTxnTopic().setName(name).setPartitions(List.of(partitions));
    }

    private static org.apache.kafka.common.TopicPartition kafka(String topic, int partition) {
        return new org.apache.kafka.common.TopicPartition(topic, partition);
    }
}
