package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.ConsumerOffsetsContract;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link ConsumerOffsetsContract} on an embedded SQLite store, each test on a fresh file, plus what
 * is particular to SQLite.
 */
class SqliteConsumerOffsetsTest extends ConsumerOffsetsContract {

    @TempDir
    Path directory;

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openSqlite(directory.resolve("contract").resolve("metadata.db"));
    }

    @Test
    void groupOffsetsSurviveCloseAndReopen() {
        Path file = directory.resolve("groups.db");
        TopicPartition partition = new TopicPartition("orders", 2);
        CommittedOffset committed = new CommittedOffset(42, 7, "{\"owner\":\"a\"}", 1_700_000_000_000L);
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            store.commitOffsets("billing", Map.of(partition, committed));
        }

        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            assertThat(store.offsetGroups()).containsExactly("billing");
            assertThat(store.committedOffsets("billing")).containsExactly(Map.entry(partition, committed));
        }
    }
}
