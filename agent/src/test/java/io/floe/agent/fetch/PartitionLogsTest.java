package io.floe.agent.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.produce.CommittedObject;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The in-memory views on a real SQLite store: begun by commits, shared budget, dropped when batches move. */
class PartitionLogsTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);

    @TempDir
    Path dir;

    private MetadataStore store;
    private ProduceFixture produce;
    private Topic topic;

    @BeforeEach
    void openStore() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        produce = new ProduceFixture(store);
        topic = store.createTopic(new NewTopic("events", 8, Map.of()));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aCommitToAPartitionWithoutAViewBeginsOneThatIndexesItsBatches() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded());
        commitAndTell(logs, 0, 3);

        PartitionLog view = logs.log(P0);
        assertThat(view.indexStart())
                .as("the index covers the partition from its first commit")
                .isZero();
        assertThat(view.offsets()).isEqualTo(new LogOffsets(0, 30));
        assertThat(logs.batches(P0, 0, Long.MAX_VALUE, null)).isEqualTo(store.batches(P0, 0, 100));
        assertThat(logs.indexedBatches()).isEqualTo(3);
    }

    @Test
    void viewsAreDroppedBeforeAFetchServesFromThemOnceTheStoreMovedBatches() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded());
        commitAndTell(logs, 0, 3);
        List<PartitionQuery> fetch = List.of(new PartitionQuery(P0, 0, 1 << 20));
        logs.checkRewrites(fetch);
        assertThat(logs.indexedBatches()).as("nothing moved").isEqualTo(3);

        store.deleteRecords(P0, 15);
        assertThat(logs.offsets(P0).logStartOffset())
                .as("the view has not looked yet")
                .isZero();
        logs.checkRewrites(fetch);

        assertThat(logs.indexedBatches()).isZero();
        assertThat(logs.offsets(P0)).as("reloaded from the store").isEqualTo(new LogOffsets(15, 30));
        assertThat(logs.log(P0).indexStart()).isEqualTo(30);
    }

    @Test
    void aFetchThatReadsNoIndexedBatchesDoesNotAskTheStore() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded());
        commitAndTell(logs, 0, 2);
        store.deleteRecords(P0, 5);

        logs.checkRewrites(List.of(new PartitionQuery(P0, 20, 1 << 20))); // at the end: nothing to serve
        assertThat(logs.indexedBatches()).isEqualTo(2);
        logs.checkRewrites(List.of(new PartitionQuery(new TopicPartition("events", 1), 0, 1 << 20))); // no view
        assertThat(logs.indexedBatches()).isEqualTo(2);
    }

    @Test
    void indexesShareOneBudgetAndKeepTheirNewestBatches() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded(), 64);
        commitAndTell(logs, 0, 100);
        assertThat(logs.log(P0).offsets().highWatermark()).isEqualTo(1000);
        assertThat(logs.indexedBatches()).as("one view gets the whole budget").isEqualTo(64);
        assertThat(logs.log(P0).indexStart()).isEqualTo(360);

        for (int partition = 1; partition < 8; partition++) {
            commitAndTell(logs, partition, 1);
        }
        commitAndTell(logs, 0, 1);
        assertThat(logs.log(P0).indexedBatches())
                .as("eight views: the least share each")
                .isEqualTo(PartitionLogs.INDEX_BATCHES_MIN);
        assertThat(logs.batches(P0, 0, Long.MAX_VALUE, null))
                .as("below the index, from the store")
                .extracting(BatchCoordinate::baseOffset)
                .startsWith(0L, 10L);
    }

    @Test
    void aViewLoadedWhileAnotherWasDroppedServesOnceAndIsNotKept() {
        AtomicReference<PartitionLogs> views = new AtomicReference<>();
        AtomicBoolean first = new AtomicBoolean(true);
        // While the first load of P0's markers is in flight, a commit whose outcome this agent never learned
        // lands and its view of P0 is dropped, as SegmentCommit's unknown outcome does.
        MetadataStore racing = new ForwardingMetadataStore(store) {
            @Override
            public LogOffsets offsets(TopicPartition topicPartition) {
                LogOffsets result = super.offsets(topicPartition);
                if (first.getAndSet(false)) {
                    produce.commit(produce.batch(topic, 0, 10));
                    views.get().forget(P0);
                }
                return result;
            }
        };
        PartitionLogs logs = new PartitionLogs(racing, racing.embedded());
        views.set(logs);

        assertThat(logs.offsets(P0)).as("this call serves the markers it read").isEqualTo(new LogOffsets(0, 0));
        assertThat(logs.offsets(P0))
                .as("but they were not kept: the next use reads again")
                .isEqualTo(new LogOffsets(0, 10));
    }

    /** Commits {@code batches} batches of 10 records to {@code partition}, one object each, and tells the views. */
    private void commitAndTell(PartitionLogs logs, int partition, int batches) {
        TopicPartition tp = new TopicPartition(topic.name(), partition);
        for (int i = 0; i < batches; i++) {
            long base = ((AppendResult.Appended)
                            produce.commit(produce.batch(topic, partition, 10)).get(0))
                    .baseOffset();
            BatchCoordinate batch = store.batches(tp, base, 1).get(0);
            logs.onCommitted(new CommittedObject(List.of(new CommittedObject.Appended(batch, 0))));
        }
    }
}
