package io.floe.kafka.api.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import java.util.List;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DescribeTransactionsApiTest {

    private final TransactionApiFixture fixture = new TransactionApiFixture();

    @AfterEach
    void closeFixture() {
        fixture.close();
    }

    private final DescribeTransactionsApi api = new DescribeTransactionsApi(fixture.coordinator);

    @Test
    void describesTheStoredTransactionAndRefusesUnknownIds() {
        ProducerEpoch producer = fixture.open("tx-1", new TopicPartition("orders", 1), new TopicPartition("orders", 0));

        DescribeTransactionsResponseData response = api.handle(
                        TransactionApiFixture.context(ApiKeys.DESCRIBE_TRANSACTIONS, 0),
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of("tx-1", "tx-none")))
                .toCompletableFuture()
                .join();

        TransactionState open = response.transactionStates().get(0);
        assertThat(open.errorCode()).isZero();
        assertThat(open.transactionState()).isEqualTo("Ongoing");
        assertThat(open.producerId()).isEqualTo(producer.producerId());
        assertThat(open.producerEpoch()).isEqualTo(producer.epoch());
        assertThat(open.transactionTimeoutMs()).isEqualTo(60_000);
        assertThat(open.transactionStartTimeMs()).isEqualTo(fixture.clock.millis());
        assertThat(open.topics().find("orders").partitions()).containsExactly(0, 1);
        assertThat(response.transactionStates().get(1).errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
    }
}
