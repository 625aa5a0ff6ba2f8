package io.floe.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.maintenance.Maintenance;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.MaintenanceMetadata;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idle agent's housekeeping (the agent's periodic loops and the maintenance jobs, on virtual time)
 * must cost the metadata store the same whether it holds no transactional ids and groups or many: nothing
 * periodic may scale with what was ever stored. Counts each store operation and the rows it returns over
 * 3 virtual minutes: three offset retention sweeps, 18 transaction timeout rounds, three rounds of each
 * maintenance job.
 */
class IdleHousekeepingTest {

    private static final Duration WARM_UP = Duration.ofSeconds(30);
    private static final Duration MEASURED = Duration.ofMinutes(3);
    /** Kafka's default is 10 minutes; a shorter one puts three sweeps in the measured window. */
    private static final Duration OFFSETS_RETENTION_CHECK = Duration.ofMinutes(1);

    @TempDir
    Path directory;

    @Test
    void storeCallsPerRoundDoNotGrowWithStoredTransactionalIdsAndGroups() {
        Cost empty = idleCost("empty", 0, 0);
        Cost stored = idleCost("stored", 400, 200);

        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(stored.calls())
                    .as(
                            "store operations of an idle agent over %s, with 400 transactional ids and 200 groups stored",
                            MEASURED)
                    .isEqualTo(empty.calls());
            softly.assertThat(stored.rows())
                    .as(
                            "rows the store returned to an idle agent over %s, with 400 transactional ids and 200 groups"
                                    + " stored",
                            MEASURED)
                    .isEqualTo(empty.rows());
        });
    }

    /** Store operations and rows returned, by operation, while one agent idles on a store holding what is asked. */
    private Cost idleCost(String name, int transactionalIds, int groups) {
        World world = new World(1);
        MetadataStore store = SqlMetadataStore.openSqlite(directory.resolve(name + ".db"), world.clock());
        try {
            store.createTopic(new NewTopic("orders", 2, Map.of()));
            for (int id = 0; id < transactionalIds; id++) {
                store.initProducer("txn-" + id, 60_000, null, world.clock().instant());
            }
            for (int group = 0; group < groups; group++) {
                store.commitOffsets(
                        "group-" + group,
                        Map.of(
                                new TopicPartition("orders", 0),
                                new CommittedOffset(1, -1, "", world.clock().millis())));
            }
            CountingStore counting = new CountingStore(store);
            Node node = new Node("agent-1.1", true);
            SimConcurrency concurrency = new SimConcurrency(world, node);
            MemoryObjectStore objects = new MemoryObjectStore(world.clock());
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            Agent agent = Agent.start(
                    AgentConfig.defaults().withIdentity(1, node.name()).withAutoCreateTopics(false),
                    AgentMetadata.of(counting),
                    objects,
                    meters,
                    world.clock(),
                    GroupCoordinatorConfig.defaults().withOffsetsRetention(Duration.ofDays(7), OFFSETS_RETENTION_CHECK),
                    concurrency);
            Maintenance.start(
                    MaintenanceConfig.DEFAULTS,
                    node.name(),
                    MaintenanceMetadata.of(counting),
                    objects,
                    agent.topics().configs(),
                    world.clock(),
                    meters,
                    concurrency);
            world.runUntil(world.nanoTime() + WARM_UP.toNanos(), () -> {});
            counting.reset();
            world.runUntil(world.nanoTime() + MEASURED.toNanos(), () -> {});
            assertThat(world.uncaught()).isEmpty();
            return counting.cost();
        } finally {
            store.close();
        }
    }

    /** What an idle agent asked of the store: calls and rows returned, by operation. */
    record Cost(Map<String, Integer> calls, Map<String, Integer> rows) {}

    /** Forwards every operation and counts it, with the rows (elements) its answer holds. */
    private static final class CountingStore extends ForwardingMetadataStore {

        private final Map<String, Integer> calls = new TreeMap<>();
        private final Map<String, Integer> rows = new TreeMap<>();

        CountingStore(MetadataStore store) {
            super(store);
        }

        @Override
        protected <T> T call(MetadataOperation operation, Supplier<T> call) {
            T result = call.get();
            calls.merge(operation.name(), 1, Integer::sum);
            rows.merge(operation.name(), rows(result), Integer::sum);
            return result;
        }

        private static int rows(Object result) {
            if (result instanceof Collection<?> collection) {
                return collection.size();
            } else if (result instanceof Map<?, ?> map) {
                return map.size();
            } else if (result instanceof Optional<?> optional) {
                return optional.isPresent() ? 1 : 0;
            }
            return result == null ? 0 : 1;
        }

        void reset() {
            calls.clear();
            rows.clear();
        }

        Cost cost() {
            return new Cost(Map.copyOf(calls), Map.copyOf(rows));
        }
    }
}
