package io.floe.kafka.api.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ListTransactionsApiTest {

    private final TransactionApiFixture fixture = new TransactionApiFixture();

    @AfterEach
    void closeFixture() {
        fixture.close();
    }

    private final ListTransactionsApi api =
            new ListTransactionsApi(fixture.coordinator, id -> !id.startsWith("elsewhere"), fixture.clock);

    @Test
    void listsTheIdsCoordinatedHereByStateProducerDurationAndPattern() {
        ProducerEpoch old = fixture.open("app-old", new TopicPartition("orders", 0));
        fixture.clock.step(Duration.ofMinutes(5));
        fixture.open("app-young", new TopicPartition("orders", 1));
        fixture.init("other-idle");
        fixture.open("elsewhere-1", new TopicPartition("orders", 0));

        assertThat(ids(new ListTransactionsRequestData(), 0))
                .containsExactlyInAnyOrder("app-old", "app-young", "other-idle");
        assertThat(ids(new ListTransactionsRequestData().setStateFilters(List.of("Empty")), 0))
                .containsExactly("other-idle");
        assertThat(ids(new ListTransactionsRequestData().setProducerIdFilters(List.of(old.producerId())), 0))
                .containsExactly("app-old");
        assertThat(ids(new ListTransactionsRequestData().setDurationFilter(60_000), 1))
                .containsExactly("app-old");
        assertThat(ids(new ListTransactionsRequestData().setDurationFilter(60_000), 0))
                .as("v0 has no duration filter")
                .hasSize(3);
        assertThat(ids(new ListTransactionsRequestData().setTransactionalIdPattern("app-.*"), 2))
                .containsExactlyInAnyOrder("app-old", "app-young");
    }

    @Test
    void unknownStatesAreEchoedAndBadPatternsRefused() {
        ListTransactionsResponseData unknown =
                call(new ListTransactionsRequestData().setStateFilters(List.of("Ongoing", "Sleeping")), 0);
        assertThat(unknown.unknownStateFilters()).containsExactly("Sleeping");

        ListTransactionsResponseData bad = call(new ListTransactionsRequestData().setTransactionalIdPattern("(["), 2);
        assertThat(bad.errorCode()).isEqualTo(Errors.INVALID_REGULAR_EXPRESSION.code());
    }

    private List<String> ids(ListTransactionsRequestData request, int version) {
        return call(request, version).transactionStates().stream()
                .map(ListTransactionsResponseData.TransactionState::transactionalId)
                .toList();
    }

    private ListTransactionsResponseData call(ListTransactionsRequestData request, int version) {
        return api.handle(TransactionApiFixture.context(ApiKeys.LIST_TRANSACTIONS, version), request)
                .toCompletableFuture()
                .join();
    }
}
