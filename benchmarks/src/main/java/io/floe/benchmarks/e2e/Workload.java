package io.floe.benchmarks.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The workload run on each system, the same for all: create the topic, produce N records with ProducerPerformance,
 * then read them all back with ConsumerPerformance (group) and/or the assign()-based consumer.
 */
final class Workload {

    static final String TOPIC = "bench";
    private static final long CREATE_TOPIC_TIMEOUT_S = 60;

    private final BenchmarkOptions options;
    private final PerfRunner perf;

    Workload(BenchmarkOptions options, PerfRunner perf) {
        this.options = options;
        this.perf = perf;
    }

    SystemRun run(int round, Target target, Path dir) throws InterruptedException {
        List<String> notes = new ArrayList<>();
        String bootstrap = target.bootstrapServers();
        createTopic(bootstrap).ifPresent(error ->
                notes.add("CreateTopics failed (" + error + "); relied on auto-creation"));
        Outcome<ProducerSummary> produce = perf.produce(bootstrap, TOPIC, dir.resolve("producer.log"));
        Outcome<ConsumerSummary> group;
        Outcome<ConsumerSummary> assign;
        if (produce.measured().isEmpty()) {
            group = Outcome.skipped("produce failed");
            assign = Outcome.skipped("produce failed");
        } else {
            group = options.consumerMode().runsPerf()
                    ? perf.consumeWithGroup(bootstrap, TOPIC, dir.resolve("consumer-perf.log"))
                    : Outcome.skipped("--consumer assign");
            assign = options.consumerMode().runsAssign()
                    ? perf.consumeWithAssign(bootstrap, TOPIC, dir.resolve("consumer-assign.log"))
                    : Outcome.skipped("--consumer perf");
        }
        return new SystemRun(round, target.label(), produce, group, assign, target.peakHeapBytes(),
                target.peakRssBytes(), notes);
    }

    /** Creates the topic with P partitions, replication 1; returns the error when that failed. */
    private Optional<String> createTopic(String bootstrapServers) throws InterruptedException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "bench-admin"))) {
            admin.createTopics(Set.of(new NewTopic(TOPIC, options.partitions(), (short) 1)))
                    .all().get(CREATE_TOPIC_TIMEOUT_S, TimeUnit.SECONDS);
            return Optional.empty();
        } catch (ExecutionException e) {
            return e.getCause() instanceof TopicExistsException
                    ? Optional.empty()
                    : Optional.of(e.getCause().toString());
        } catch (TimeoutException e) {
            return Optional.of("no answer in " + CREATE_TOPIC_TIMEOUT_S + " s");
        }
    }
}
