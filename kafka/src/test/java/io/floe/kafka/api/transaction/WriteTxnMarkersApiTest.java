package io.floe.kafka.api.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WriteTxnMarkersApiTest {

    private final TransactionApiFixture fixture = new TransactionApiFixture();

    @AfterEach
    void closeFixture() {
        fixture.close();
    }

    private final WriteTxnMarkersApi api = new WriteTxnMarkersApi(fixture.coordinator);

    @Test
    void abortsTheProducersTransactionOnTheNamedPartitionOnly() {
        ProducerEpoch producer = fixture.open("tx-1", new TopicPartition("orders", 0), new TopicPartition("orders", 1));

        Map<org.apache.kafka.common.TopicPartition, Errors> errors = write(producer, 0, -1);

        assertThat(errors)
                .containsEntry(new org.apache.kafka.common.TopicPartition("orders", 0), Errors.NONE)
                .containsEntry(
                        new org.apache.kafka.common.TopicPartition("orders", -1), Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(fixture.store.transaction("tx-1").orElseThrow().partitions())
                .containsExactly(new TopicPartition("orders", 1));
    }

    @Test
    void anOlderEpochThanTheTransactionsIsInvalidProducerEpoch() {
        fixture.init("tx-1");
        ProducerEpoch producer = fixture.open("tx-1", new TopicPartition("orders", 0));

        Map<org.apache.kafka.common.TopicPartition, Errors> errors =
                write(new ProducerEpoch(producer.producerId(), (short) (producer.epoch() - 1)), 0);

        assertThat(errors).containsValue(Errors.INVALID_PRODUCER_EPOCH);
    }

    private Map<org.apache.kafka.common.TopicPartition, Errors> write(ProducerEpoch producer, Integer... partitions) {
        WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData()
                .setMarkers(List.of(new WritableTxnMarker()
                        .setProducerId(producer.producerId())
                        .setProducerEpoch(producer.epoch())
                        .setTransactionResult(false)
                        .setCoordinatorEpoch(0)
                        .setTopics(List.of(new WritableTxnMarkerTopic()
                                .setName("orders")
                                .setPartitionIndexes(List.of(partitions))))));
        return new WriteTxnMarkersResponse(
                        api.handle(TransactionApiFixture.context(ApiKeys.WRITE_TXN_MARKERS, 1), request)
                                .toCompletableFuture()
                                .join())
                .errorsByProducerId()
                .get(producer.producerId());
    }
}
