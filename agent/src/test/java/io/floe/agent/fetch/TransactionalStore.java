package io.floe.agent.fetch;

import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.Topic;
import io.floe.testkit.metadata.ProduceFixture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the SQL store's transactions until they land: a real SQLite store whose
 * {@code entries}, {@code offsets}, {@code producers} and {@code abortedTransactions} answer the
 * transactions the test declares. A marker is stored as a one-record placeholder batch (so the SQL
 * store's high watermark moves by one) that {@code entries} answers as the marker.
 */
class TransactionalStore extends ForwardingMetadataStore {

    private final ProduceFixture produce;
    private final Map<TopicPartition, Map<Long, Long>> open = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Map<Long, TransactionMarker>> markers = new ConcurrentHashMap<>();
    private final Map<TopicPartition, List<AbortedTransaction>> aborted = new ConcurrentHashMap<>();
    final AtomicInteger offsetReads = new AtomicInteger();
    final AtomicInteger abortedReads = new AtomicInteger();

    TransactionalStore(MetadataStore store) {
        super(store);
        this.produce = new ProduceFixture(store);
    }

    /** Declares that {@code producerId}'s transaction in the partition begins at {@code firstOffset}. */
    void begin(TopicPartition tp, long producerId, long firstOffset) {
        open.computeIfAbsent(tp, k -> new ConcurrentHashMap<>()).putIfAbsent(producerId, firstOffset);
    }

    /** Ends the producer's open transaction with a marker at the partition's end, as the store would. */
    TransactionMarker end(Topic topic, TopicPartition tp, long producerId, boolean commit) {
        long offset = ((AppendResult.Appended)
                        produce.commit(produce.batch(topic, tp.partition(), 1)).get(0))
                .baseOffset();
        long first = open.get(tp).remove(producerId);
        TransactionMarker marker = new TransactionMarker(tp, offset, producerId, (short) 0, commit, first, 0, 1_000L);
        markers.computeIfAbsent(tp, k -> new ConcurrentHashMap<>()).put(offset, marker);
        if (!commit) {
            aborted.computeIfAbsent(tp, k -> new ArrayList<>()).add(new AbortedTransaction(producerId, first, offset));
        }
        return marker;
    }

    @Override
    public LogOffsets offsets(TopicPartition topicPartition) {
        offsetReads.incrementAndGet();
        LogOffsets stored = super.offsets(topicPartition);
        long stable = stored.highWatermark();
        for (long first : open.getOrDefault(topicPartition, Map.of()).values()) {
            stable = Math.min(stable, first);
        }
        return new LogOffsets(
                stored.logStartOffset(), Math.max(stored.logStartOffset(), stable), stored.highWatermark());
    }

    @Override
    public List<ActiveProducer> producers(TopicPartition topicPartition) {
        Map<Long, Long> transactions = new HashMap<>(open.getOrDefault(topicPartition, Map.of()));
        List<ActiveProducer> producers = new ArrayList<>();
        for (ActiveProducer producer : super.producers(topicPartition)) {
            Long first = transactions.remove(producer.producerId());
            producers.add(new ActiveProducer(
                    producer.producerId(),
                    producer.producerEpoch(),
                    producer.lastSequence(),
                    producer.lastTimestamp(),
                    first == null ? ActiveProducer.NO_TRANSACTION : first));
        }
        transactions.forEach((id, first) -> producers.add(new ActiveProducer(id, (short) 0, 0, -1, first)));
        return producers;
    }

    @Override
    public List<List<LogEntry>> entries(List<BatchesQuery> queries) {
        List<List<LogEntry>> answers = new ArrayList<>();
        for (int i = 0; i < queries.size(); i++) {
            Map<Long, TransactionMarker> partitionMarkers =
                    markers.getOrDefault(queries.get(i).topicPartition(), Map.of());
            List<LogEntry> entries = new ArrayList<>();
            for (LogEntry entry : super.entries(List.of(queries.get(i))).get(0)) {
                TransactionMarker marker = partitionMarkers.get(entry.baseOffset());
                entries.add(marker != null ? marker : (BatchCoordinate) entry);
            }
            answers.add(entries);
        }
        return answers;
    }

    @Override
    public List<AbortedTransaction> abortedTransactions(TopicPartition topicPartition, long fromOffset, long toOffset) {
        abortedReads.incrementAndGet();
        return aborted.getOrDefault(topicPartition, List.of()).stream()
                .filter(transaction -> transaction.overlaps(fromOffset, toOffset))
                .toList();
    }
}
