package io.floe.agent.topic;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.config.TopicConfigs;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two agents' topic caches over one store: what one changes, the other learns on a miss or a refresh. */
class TopicsRefreshTest {

    @TempDir
    Path dir;

    private MetadataStore store;
    private Topics here;
    private Topics elsewhere;

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        here = new Topics(store, new TopicConfigs(Map.of()), true, 1);
        elsewhere = new Topics(store, new TopicConfigs(Map.of()), true, 1);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aTopicCreatedElsewhereIsFoundByItsIdAndItsDeletionIsSeenOnRefresh() {
        List<String> deleted = new ArrayList<>();
        here.onDeleted(deleted::add);
        Topic created = elsewhere.create(new NewTopic("orders", 2, Map.of()), false);

        assertThat(here.find(created.id())).contains(created);

        elsewhere.createPartitions("orders", 4);
        here.refresh();
        assertThat(here.find("orders"))
                .hasValueSatisfying(topic -> assertThat(topic.partitionCount()).isEqualTo(4));

        elsewhere.delete("orders");
        here.refresh();
        assertThat(here.find(created.id())).isEmpty();
        assertThat(deleted).containsExactly("orders");
    }
}
