package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.testkit.metadata.LogAppendsContract;
import io.floe.testkit.metadata.ProduceFixture;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@link LogAppendsContract} on the shared PostgreSQL test server, each test on a fresh schema, plus
 * what only a shared database has.
 */
class PostgresLogAppendsIT extends LogAppendsContract {

    @Override
    protected MetadataStore createStore() {
        return PostgresTesting.contractStore();
    }

    @Test
    void storesOnOneDatabaseShareTopicsOffsetsAndIds() {
        String schema = PostgresTesting.server().createSchema(PostgresTesting.contractDatabase());
        try (MetadataStore first = SqlMetadataStore.openPostgres(PostgresTesting.config(schema), Clock.systemUTC());
                MetadataStore second =
                        SqlMetadataStore.openPostgres(PostgresTesting.config(schema), Clock.systemUTC())) {
            Topic topic = first.createTopic(new NewTopic("orders", 2, Map.of("retention.ms", "1000")));
            ProduceFixture viaFirst = new ProduceFixture(first);
            ProduceFixture viaSecond = new ProduceFixture(second);

            assertThat(second.topic("orders")).contains(topic);
            assertThat(viaFirst.commit(viaFirst.batch(topic, 0, 3))).containsExactly(new AppendResult.Appended(0, 0));
            assertThat(viaSecond.commit(viaSecond.batch(topic, 0, 2))).containsExactly(new AppendResult.Appended(3, 0));
            assertThat(first.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 5));
            assertThatThrownBy(() -> second.createTopic(new NewTopic("orders", 1, Map.of())))
                    .isInstanceOf(TopicExistsException.class);
            Topic other = second.createTopic(new NewTopic("payments", 1, Map.of()));
            assertThat(viaFirst.commit(viaFirst.batch(other, 0, 1))).containsExactly(new AppendResult.Appended(0, 0));
            assertThat(first.allocateProducerId()).isNotEqualTo(second.allocateProducerId());
        }
    }

    @Test
    void aCommitWhoseAnswerIsLostIsUnknownAndItsRetryAppendsNothing() throws Exception {
        String schema = PostgresTesting.server().createSchema(PostgresTesting.contractDatabase());
        try (CommitCuttingProxy proxy =
                        CommitCuttingProxy.start(PostgresTesting.server().port());
                MetadataStore store = SqlMetadataStore.openPostgres(
                        PostgresTesting.config(
                                schema.replace(":" + PostgresTesting.server().port() + "/", ":" + proxy.port() + "/")),
                        Clock.systemUTC())) {
            ProduceFixture produce = new ProduceFixture(store);
            Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
            long producerId = store.allocateProducerId();
            ObjectKey object = produce.registerUpload();
            BatchAppend batch = produce.idempotent(topic, 0, producerId, 0, 0, 3);

            proxy.cutAfterNextCommit();
            CommitOutcome lost = produce.commit(object, batch);

            assertThat(lost).isInstanceOf(CommitOutcome.Unknown.class);
            assertThat(produce.commit(object, batch))
                    .isEqualTo(new CommitOutcome.Committed(List.of(new AppendResult.Duplicate(0, 0))));
            // The producer's own retry, in the next flush's object, resolves to the same offset.
            assertThat(produce.commit(produce.idempotent(topic, 0, producerId, 0, 0, 3)))
                    .containsExactly(new AppendResult.Duplicate(0, 0));
            assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 3));
            assertThat(store.batches(new TopicPartition("orders", 0), 0, 10)).hasSize(1);
        }
    }
}
