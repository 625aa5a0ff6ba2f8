package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.InvalidPartitionsException;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.core.topic.UnknownTopicException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link TopicMetadata}: topics are created, listed, grown, reconfigured and deleted.
 * Extend it next to each implementation; every method of the role must be called by some test here
 * (see {@link RoleContract}).
 */
public abstract class TopicMetadataContract extends RoleContract {

    @Override
    protected final Class<?> role() {
        return TopicMetadata.class;
    }

    @Test
    void createTopicGivesAFreshIdAndEmptyPartitions() {
        Topic topic = store.createTopic(new NewTopic("orders", 3, Map.of("retention.ms", "1000")));

        assertThat(topic.name()).isEqualTo("orders");
        assertThat(topic.partitionCount()).isEqualTo(3);
        assertThat(topic.configs()).containsExactly(Map.entry("retention.ms", "1000"));
        assertThat(store.topic("orders")).contains(topic);
        for (int partition = 0; partition < 3; partition++) {
            assertThat(store.offsets(new TopicPartition("orders", partition))).isEqualTo(LogOffsets.EMPTY);
        }
        assertThat(store.createTopic(new NewTopic("payments", 1, Map.of())).id())
                .isNotEqualTo(topic.id());
    }

    @Test
    void createTopicRefusesAnExistingName() {
        Topic first = store.createTopic(new NewTopic("orders", 1, Map.of()));

        assertThatThrownBy(() -> store.createTopic(new NewTopic("orders", 2, Map.of())))
                .isInstanceOf(TopicExistsException.class)
                .hasMessageContaining("orders");
        assertThat(store.topic("orders")).contains(first);
    }

    @Test
    void topicsAreListedByName() {
        store.createTopic(new NewTopic("b", 1, Map.of()));
        store.createTopic(new NewTopic("a", 2, Map.of("cleanup.policy", "compact")));
        store.createTopic(new NewTopic("c", 1, Map.of()));

        assertThat(store.topics()).extracting(Topic::name).containsExactly("a", "b", "c");
        assertThat(store.topics().get(0).configs()).containsExactly(Map.entry("cleanup.policy", "compact"));
        assertThat(store.topic("missing")).isEmpty();
    }

    @Test
    void deleteTopicRemovesItsLogAndFreesTheName() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of("retention.ms", "1")));
        produce.commit(produce.batch(topic, 0, 5), produce.batch(topic, 1, 5));
        TopicPartition partition = new TopicPartition("orders", 0);

        store.deleteTopic("orders");

        assertThat(store.topic("orders")).isEmpty();
        assertThat(store.topics()).isEmpty();
        assertThatThrownBy(() -> store.offsets(partition)).isInstanceOf(UnknownTopicException.class);
        assertThat(store.batches(partition, 0, 10)).isEmpty();
        Topic again = store.createTopic(new NewTopic("orders", 1, Map.of()));
        assertThat(again.id()).isNotEqualTo(topic.id());
        assertThat(again.configs()).isEmpty();
        assertThat(store.offsets(partition)).isEqualTo(LogOffsets.EMPTY);
        assertThat(store.batches(partition, 0, 10)).isEmpty();
    }

    @Test
    void topicOperationsOnAMissingTopicThrowUnknownTopic() {
        assertThatThrownBy(() -> store.deleteTopic("missing")).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.createPartitions("missing", 3)).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.setTopicConfigs("missing", Map.of())).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.offsets(new TopicPartition("missing", 0)))
                .isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void createPartitionsAddsEmptyPartitionsAndKeepsTheRest() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of("retention.ms", "1000")));
        produce.commit(produce.batch(topic, 1, 4));

        Topic grown = store.createPartitions("orders", 4);

        assertThat(grown).isEqualTo(new Topic("orders", topic.id(), 4, topic.configs()));
        assertThat(store.topic("orders")).contains(grown);
        assertThat(store.offsets(new TopicPartition("orders", 1))).isEqualTo(new LogOffsets(0, 4));
        assertThat(store.offsets(new TopicPartition("orders", 3))).isEqualTo(LogOffsets.EMPTY);
        assertThat(produce.commit(produce.batch(grown, 3, 2))).containsExactly(new AppendResult.Appended(0, 0));
    }

    @Test
    void createPartitionsRefusesToShrinkOrStay() {
        store.createTopic(new NewTopic("orders", 3, Map.of()));

        assertThatThrownBy(() -> store.createPartitions("orders", 2))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessage("Topic currently has 3 partitions, which is higher than the requested 2.");
        assertThatThrownBy(() -> store.createPartitions("orders", 3)).isInstanceOf(InvalidPartitionsException.class);
        assertThat(store.topic("orders").orElseThrow().partitionCount()).isEqualTo(3);
    }

    @Test
    void setTopicConfigsReplacesTheOverrides() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of("retention.ms", "1000", "segment.ms", "5")));

        Topic updated = store.setTopicConfigs("orders", Map.of("retention.ms", "2000", "cleanup.policy", "compact"));

        assertThat(updated)
                .isEqualTo(new Topic(
                        "orders", topic.id(), 1, Map.of("retention.ms", "2000", "cleanup.policy", "compact")));
        assertThat(store.topic("orders")).contains(updated);
        assertThat(store.setTopicConfigs("orders", Map.of()).configs()).isEmpty();
        assertThat(store.topic("orders").orElseThrow().configs()).isEmpty();
    }
}
