package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.GroupReader;
import io.floe.cli.e2e.faults.FaultRunChecker.Observation;
import io.floe.cli.e2e.faults.TransactionalRunChecker.History;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Outcome;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Result;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Transaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The transactional load of a fault run, beside its idempotent one: {@link TransactionalProducer}s
 * on a topic of their own, and a consumer group at isolation.level=read_committed that polls and
 * commits. After the heal it waits until no transaction is open (every partition's last stable offset
 * at its high watermark) and the group polled every committed record, then reads the topic from the
 * beginning at read_committed through two agents and at read_uncommitted through a third, and
 * {@link TransactionalRunChecker} checks the history.
 */
final class TransactionalRun implements AutoCloseable {

    static final String TOPIC = "payments";
    private static final String GROUP = "payment-readers";
    private static final int PRODUCERS = 4;
    private static final int READERS = 2;
    private static final Duration TRANSACTION_INTERVAL = Duration.ofMillis(100);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(90);

    private final Agents agents;
    private final int partitions;
    private final List<TransactionalProducer> producers = new ArrayList<>();
    private final List<GroupReader> readers = new ArrayList<>();
    private boolean stopped;

    TransactionalRun(Agents agents, int partitions, long seed) {
        this.agents = agents;
        this.partitions = partitions;
        for (int id = 1; id <= PRODUCERS; id++) {
            producers.add(new TransactionalProducer(
                    id, agents.bootstrap(), TOPIC, partitions, TRANSACTION_INTERVAL, seed * 17 + id));
        }
        for (int id = 1; id <= READERS; id++) {
            readers.add(new GroupReader(
                    id,
                    agents.bootstrap(),
                    GROUP,
                    TOPIC,
                    Map.of(
                            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                            IsolationLevel.READ_COMMITTED.toString(),
                            ConsumerConfig.CLIENT_ID_CONFIG,
                            "txn-reader-" + id)));
        }
    }

    String group() {
        return GROUP;
    }

    int readers() {
        return READERS;
    }

    void startReaders() {
        readers.forEach(GroupReader::start);
    }

    void startProducers() {
        producers.forEach(TransactionalProducer::start);
    }

    /** Lets each producer end its transaction and close; whether they all did in time. */
    boolean stopProducers() throws InterruptedException {
        boolean all = true;
        for (TransactionalProducer producer : producers) {
            all &= producer.stop(STOP_TIMEOUT);
        }
        return all;
    }

    List<Transaction> transactions() {
        return producers.stream().flatMap(p -> p.transactions().stream()).toList();
    }

    /** No transaction open on any partition, and the group polled every committed record. */
    boolean drained(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResultInfo> stable = admin.listOffsets(
                        latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(10, TimeUnit.SECONDS);
        Map<TopicPartition, ListOffsetsResultInfo> high =
                admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
        if (!stable.entrySet().stream()
                .allMatch(
                        lso -> lso.getValue().offset() == high.get(lso.getKey()).offset())) {
            return false;
        }
        Set<String> polled = readers.stream()
                .flatMap(r -> r.deliveries().stream())
                .map(GroupReader.Delivery::value)
                .collect(Collectors.toSet());
        return transactions().stream()
                .filter(t -> t.outcome() == Outcome.COMMITTED)
                .flatMap(t -> t.records().stream())
                .allMatch(sent -> polled.contains(sent.value()));
    }

    /** Stops the group's members; whether they all stopped in time. */
    boolean stopReaders(Duration timeout) throws InterruptedException {
        stopped = true;
        boolean all = true;
        for (GroupReader reader : readers) {
            all &= reader.stop(timeout);
        }
        return all;
    }

    /** The final reads: read_committed through the first and last agents, read_uncommitted through the second. */
    List<FinalRead.Outcome> finalReads(Duration timeout) {
        List<Integer> nodes = agents.nodeIds();
        return List.of(
                FinalRead.read(
                        "txn-final-read-1",
                        agents.bootstrap(nodes.get(0)),
                        TOPIC,
                        partitions,
                        IsolationLevel.READ_COMMITTED,
                        timeout),
                FinalRead.read(
                        "txn-final-read-2",
                        agents.bootstrap(nodes.get(nodes.size() - 1)),
                        TOPIC,
                        partitions,
                        IsolationLevel.READ_COMMITTED,
                        timeout),
                FinalRead.read(
                        "txn-final-read-uncommitted",
                        agents.bootstrap(nodes.get(1 % nodes.size())),
                        TOPIC,
                        partitions,
                        IsolationLevel.READ_UNCOMMITTED,
                        timeout));
    }

    /** Checks the history against {@code reads} as {@link #finalReads} returned them. */
    Result check(List<FinalRead.Outcome> reads) {
        return TransactionalRunChecker.check(new History(
                transactions(),
                polls(),
                List.of(reads.get(0).records(), reads.get(1).records()),
                reads.get(2).records()));
    }

    List<String> readerErrors() {
        return readers.stream().flatMap(r -> r.unexpected().stream()).toList();
    }

    List<String> producerErrors() {
        return producers.stream().flatMap(p -> p.errors().stream()).toList();
    }

    /** The summary line: the checker's counts, and how the clients fared. */
    String summary(long seed, Result result, boolean drained) {
        int polled = readers.stream().mapToInt(r -> r.deliveries().size()).sum();
        return String.format(
                "TXN-FAULT-RUN seed=%d %s polled=%d drained=%s producersOpened=%d producerErrors=%d readerErrors=%d",
                seed,
                result.counts(),
                polled,
                drained,
                producers.stream()
                        .mapToInt(TransactionalProducer::producersOpened)
                        .sum(),
                producerErrors().size(),
                readerErrors().size());
    }

    private List<Observation> polls() {
        return readers.stream()
                .flatMap(r -> r.deliveries().stream())
                .map(d -> new Observation("txn-reader-" + d.reader(), d.partition(), d.offset(), d.value()))
                .toList();
    }

    @Override
    public void close() throws InterruptedException {
        for (TransactionalProducer producer : producers) {
            producer.stop(Duration.ofSeconds(15));
        }
        if (!stopped) {
            stopReaders(Duration.ofSeconds(15));
        }
    }
}
