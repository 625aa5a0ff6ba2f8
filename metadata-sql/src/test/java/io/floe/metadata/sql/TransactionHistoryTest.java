package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.OpenTransaction;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.testkit.metadata.ProduceFixture;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random histories of transactional and plain producers against the store: transactions
 * begun by either transaction version, committed, aborted, fenced by a new producer or by their
 * timeout, zombies that go on sending, a non-transactional producer in between, and retention moving
 * the log start. After every step a read-committed reader built like Kafka's consumer (the entries
 * below the last stable offset, filtered by the aborted ranges and the abort markers) must return
 * exactly the batches of committed transactions and of the plain producer below the last stable offset
 * (so nothing of a transaction is readable before its commit, and all of it once the last stable
 * offset passes it); in every partition the last stable offset never decreases and never passes an
 * open transaction's first batch; every end marks exactly the partitions its transaction wrote, after
 * their batches; a zombie's batch is always fenced. A failing seed names itself in the message.
 */
class TransactionHistoryTest {

    private static final int STEPS = 300;
    private static final int PARTITIONS = 3;
    private static final int TRANSACTIONAL_IDS = 3;
    private static final int TIMEOUT_MS = 1_000;

    @TempDir
    Path directory;

    /** One transaction of one producer epoch, as the test knows it. */
    private static final class Txn {
        final String id;
        final ProducerEpoch producer;
        final boolean version2;
        final Map<TopicPartition, List<Long>> batches = new HashMap<>();
        Boolean committed; // null while open

        Txn(String id, ProducerEpoch producer, boolean version2) {
            this.id = id;
            this.producer = producer;
            this.version2 = version2;
        }
    }

    /** A transactional id's client: its current producer, sequences and open transaction. */
    private static final class Client {
        ProducerEpoch producer;
        ProducerEpoch zombie; // an earlier epoch that keeps sending
        final Map<TopicPartition, Integer> sequences = new HashMap<>();
        Txn open;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void readCommittedReadsExactlyTheCommittedBatches(long seed) {
        Random random = new Random(seed);
        try (MetadataStore store =
                SqlMetadataStore.openSqlite(directory.resolve("seed-" + seed).resolve("metadata.db"))) {
            new History(store, random, seed).run();
        }
    }

    private static final class History {
        final MetadataStore store;
        final Random random;
        final long seed;
        final ProduceFixture produce;
        final Topic topic;
        final Map<String, Client> clients = new HashMap<>();
        /** Every appended batch: partition and base offset → the transaction it belongs to (null: plain). */
        final Map<TopicPartition, Map<Long, Txn>> appended = new HashMap<>();

        final Map<TopicPartition, Long> stableSeen = new HashMap<>();
        final List<Txn> transactions = new ArrayList<>();
        long nowMs = ProduceFixture.DEFAULT_TIMESTAMP;
        int step;

        History(MetadataStore store, Random random, long seed) {
            this.store = store;
            this.random = random;
            this.seed = seed;
            this.produce = new ProduceFixture(store);
            this.topic = store.createTopic(new NewTopic("events", PARTITIONS, Map.of()));
        }

        void run() {
            for (int i = 0; i < TRANSACTIONAL_IDS; i++) {
                String id = "txn-" + i;
                Client client = new Client();
                client.producer =
                        done(store.initProducer(id, TIMEOUT_MS, null, now())).producer();
                clients.put(id, client);
            }
            for (step = 0; step < STEPS; step++) {
                String id = "txn-" + random.nextInt(TRANSACTIONAL_IDS);
                Client client = clients.get(id);
                int action = random.nextInt(100);
                if (action < 45) {
                    send(id, client);
                } else if (action < 55) {
                    plain();
                } else if (action < 72) {
                    end(id, client, random.nextInt(3) > 0);
                } else if (action < 80) {
                    fence(id, client);
                } else if (action < 86) {
                    zombie(client);
                } else if (action < 92) {
                    expire(id, client);
                } else {
                    truncate();
                }
                nowMs += random.nextInt(400);
                check();
            }
        }

        private void send(String id, Client client) {
            TopicPartition partition = new TopicPartition(topic.name(), random.nextInt(PARTITIONS));
            if (client.open == null) {
                client.open = new Txn(id, client.producer, random.nextBoolean());
                transactions.add(client.open);
            }
            Txn txn = client.open;
            if (!txn.version2) {
                TransactionOutcome added = store.addPartitions(id, txn.producer, List.of(partition), now());
                if (!(added instanceof TransactionOutcome.Done)) {
                    fail("adding " + partition + " to the open transaction of " + id + " failed: " + added);
                }
            }
            int sequence = client.sequences.getOrDefault(partition, 0);
            AppendResult result = append(
                    partition,
                    txn.producer,
                    sequence,
                    txn.version2 ? TransactionalAppend.JOINS_TRANSACTION : TransactionalAppend.IN_TRANSACTION);
            if (!(result instanceof AppendResult.Appended appendedAt)) {
                fail("a batch of the current producer of " + id + " was refused: " + result);
                return;
            }
            client.sequences.put(partition, sequence + 1);
            txn.batches.computeIfAbsent(partition, p -> new ArrayList<>()).add(appendedAt.baseOffset());
            appended.computeIfAbsent(partition, p -> new HashMap<>()).put(appendedAt.baseOffset(), txn);
        }

        private void plain() {
            TopicPartition partition = new TopicPartition(topic.name(), random.nextInt(PARTITIONS));
            AppendResult result = produce.commit(produce.batch(topic, partition.partition(), 1))
                    .get(0);
            if (result instanceof AppendResult.Appended appendedAt) {
                appended.computeIfAbsent(partition, p -> new HashMap<>()).put(appendedAt.baseOffset(), null);
            } else {
                fail("a plain batch was refused: " + result);
            }
        }

        private void end(String id, Client client, boolean commit) {
            if (client.open == null) {
                return;
            }
            Txn txn = client.open;
            TransactionOutcome outcome = store.endTransaction(id, txn.producer, commit, txn.version2, now());
            TransactionOutcome.Done done = done(outcome);
            settle(txn, commit, done);
            client.open = null;
            if (txn.version2) {
                bumped(client, done.producer());
            }
        }

        /** A new producer for the id: the open transaction is aborted, the old epoch lives on as a zombie. */
        private void fence(String id, Client client) {
            TransactionOutcome.Done done = done(store.initProducer(id, TIMEOUT_MS, null, now()));
            if (client.open != null) {
                settle(client.open, false, done);
                client.open = null;
            } else {
                assertThat(done.markers())
                        .as(context("a fence with nothing open"))
                        .isEmpty();
            }
            client.zombie = client.producer;
            bumped(client, done.producer());
        }

        private void zombie(Client client) {
            if (client.zombie == null) {
                return;
            }
            TopicPartition partition = new TopicPartition(topic.name(), random.nextInt(PARTITIONS));
            TransactionalAppend mode =
                    random.nextBoolean() ? TransactionalAppend.JOINS_TRANSACTION : TransactionalAppend.IN_TRANSACTION;
            AppendResult result = append(partition, client.zombie, random.nextInt(3), mode);
            if (!(result instanceof AppendResult.Failed failed) || failed.error() != AppendError.PRODUCER_FENCED) {
                fail("a zombie's batch at epoch " + client.zombie + " was not fenced: " + result);
            }
        }

        private void expire(String id, Client client) {
            if (client.open == null) {
                return;
            }
            Txn txn = client.open;
            nowMs += TIMEOUT_MS + 1;
            Optional<OpenTransaction> listed = store.openTransactions().stream()
                    .filter(open -> open.transactionalId().equals(id))
                    .findFirst();
            TransactionOutcome outcome = store.abortExpired(
                    id, txn.producer, listed.map(OpenTransaction::startedAtMs).orElse(-1L), now());
            if (listed.isEmpty()) {
                // Opened by a version 1 AddPartitions that found no batch yet, or not begun in the store.
                assertThat(outcome)
                        .as(context("abort of an unlisted transaction"))
                        .isNotInstanceOf(TransactionOutcome.Done.class);
                return;
            }
            TransactionOutcome.Done done = done(outcome);
            settle(txn, false, done);
            client.open = null;
            client.zombie = client.producer;
            bumped(client, done.producer());
        }

        private void truncate() {
            TopicPartition partition = new TopicPartition(topic.name(), random.nextInt(PARTITIONS));
            LogOffsets offsets = store.offsets(partition);
            long target = offsets.logStartOffset()
                    + random.nextInt((int) (offsets.highWatermark() - offsets.logStartOffset()) + 1);
            store.truncateLog(partition, target, now());
        }

        private AppendResult append(
                TopicPartition partition, ProducerEpoch producer, int sequence, TransactionalAppend mode) {
            return produce.commit(produce.transactional(topic, partition.partition(), producer, sequence, 1, mode))
                    .get(0);
        }

        /** Records the end of {@code txn}: one marker per partition it wrote, after its batches. */
        private void settle(Txn txn, boolean commit, TransactionOutcome.Done done) {
            txn.committed = commit;
            Set<TopicPartition> marked = new HashSet<>();
            for (TransactionMarker marker : done.markers()) {
                marked.add(marker.topicPartition());
                assertThat(marker.commit()).as(context("marker kind")).isEqualTo(commit);
                List<Long> batches = txn.batches.getOrDefault(marker.topicPartition(), List.of());
                assertThat(batches)
                        .as(context("the marked transaction's batches"))
                        .isNotEmpty();
                assertThat(batches)
                        .as(context("its batches lie below its marker"))
                        .allMatch(offset -> offset < marker.offset());
                assertThat(marker.firstOffset())
                        .as(context("the marker's first offset"))
                        .isEqualTo(batches.get(0));
            }
            assertThat(marked).as(context("partitions marked")).isEqualTo(txn.batches.keySet());
        }

        private void bumped(Client client, ProducerEpoch next) {
            if (next.producerId() != client.producer.producerId() || next.epoch() != client.producer.epoch()) {
                client.sequences.clear(); // a new epoch starts its sequences at 0
            }
            client.producer = next;
        }

        /** The invariants, for every partition. */
        private void check() {
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition partition = new TopicPartition(topic.name(), p);
                LogOffsets offsets = store.offsets(partition);
                long stable = offsets.lastStableOffset();
                long before = stableSeen.getOrDefault(partition, 0L);
                assertThat(stable).as(context("LsoMonotone on " + partition)).isGreaterThanOrEqualTo(before);
                stableSeen.put(partition, stable);
                for (Txn txn : transactions) {
                    List<Long> batches = txn.batches.getOrDefault(partition, List.of());
                    if (txn.committed == null && !batches.isEmpty() && batches.get(0) >= offsets.logStartOffset()) {
                        assertThat(stable)
                                .as(context("LsoBelowOpen on " + partition))
                                .isLessThanOrEqualTo(batches.get(0));
                    }
                }
                Set<Long> read = readCommitted(partition, offsets);
                Set<Long> expected = new HashSet<>();
                appended.getOrDefault(partition, Map.of()).forEach((offset, txn) -> {
                    if (offset >= offsets.logStartOffset()
                            && offset < stable
                            && (txn == null || Boolean.TRUE.equals(txn.committed))) {
                        expected.add(offset);
                    }
                });
                assertThat(read)
                        .as(context("read committed of " + partition + " at " + offsets))
                        .isEqualTo(expected);
            }
        }

        /**
         * What Kafka's consumer returns under read_committed from the log start to the last stable
         * offset: aborted ranges enter a set of aborted producers as the read passes their first offset,
         * an abort marker takes its producer out again, and transactional batches of a producer in the
         * set are skipped. Which batch is transactional, and whose, is what the test appended.
         */
        private Set<Long> readCommitted(TopicPartition partition, LogOffsets offsets) {
            PriorityQueue<AbortedTransaction> aborted =
                    new PriorityQueue<>(Comparator.comparingLong(AbortedTransaction::firstOffset));
            aborted.addAll(store.abortedTransactions(partition, offsets.logStartOffset(), offsets.lastStableOffset()));
            Set<Long> abortedProducers = new HashSet<>();
            Set<Long> read = new HashSet<>();
            for (LogEntry entry : store.entries(List.of(new BatchesQuery(partition, offsets.logStartOffset(), 100_000)))
                    .get(0)) {
                if (entry.baseOffset() >= offsets.lastStableOffset()) {
                    break;
                }
                while (!aborted.isEmpty() && aborted.peek().firstOffset() <= entry.lastOffset()) {
                    abortedProducers.add(aborted.poll().producerId());
                }
                if (entry instanceof TransactionMarker marker) {
                    if (!marker.commit()) {
                        abortedProducers.remove(marker.producerId());
                    }
                    continue;
                }
                BatchCoordinate batch = (BatchCoordinate) entry;
                Txn txn = appended.getOrDefault(partition, Map.of()).get(batch.baseOffset());
                if (txn == null || !abortedProducers.contains(txn.producer.producerId())) {
                    read.add(batch.baseOffset());
                }
            }
            return read;
        }

        private TransactionOutcome.Done done(TransactionOutcome outcome) {
            if (!(outcome instanceof TransactionOutcome.Done done)) {
                fail("expected the operation to apply: " + outcome);
                throw new AssertionError("unreachable");
            }
            return done;
        }

        private Instant now() {
            return Instant.ofEpochMilli(nowMs);
        }

        private String context(String what) {
            return what + " (seed " + seed + ", step " + step + ")";
        }

        private void fail(String message) {
            throw new AssertionError(context(message));
        }
    }
}
