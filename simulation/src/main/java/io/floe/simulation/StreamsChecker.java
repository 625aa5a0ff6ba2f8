package io.floe.simulation;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.LogReads;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ExactlyOnceOutput, end to end, for the {@link StreamsApp}: every input record has at most one
 * committed output record ({@code o:<input value>}, in a transaction whose marker commits it), and at a
 * drain point (every thread between transactions, the group's offsets at the end of the input) every
 * input record below the group's committed offset has exactly one. The one excuse: input records that
 * retention removed before a thread read them (it reset to the log start past them, as
 * {@code auto.offset.reset=earliest} does), counted. The logs are read as they grow, from the store and
 * the objects (not through any agent), before retention can remove them.
 */
final class StreamsChecker {

    /** Where a committed output record lies, and which producer committed it. */
    private record Output(History.Position position, long producerId) {}

    /** An input record: where it lies and its key. */
    private record Input(History.Position position, String key) {}

    private final LogReads metadata;
    private final ConsumerOffsets offsets;
    private final MemoryObjectStore objects;
    private final History history;
    private final StreamsApp app;
    private final Map<TopicPartition, Long> readTo = new HashMap<>();
    /** Per output partition and producer, the records of its open transaction (fate not known yet). */
    private final Map<TopicPartition, Map<Long, List<History.Position>>> open = new HashMap<>();

    private final Map<History.Position, String> outputValue = new HashMap<>();
    private final Map<String, Output> committedOutput = new HashMap<>();
    private final Map<String, Input> inputs = new LinkedHashMap<>();
    /** Per input partition, the ranges a thread skipped because retention had removed them: [from, to). */
    private final Map<TopicPartition, List<long[]>> skipped = new HashMap<>();
    /** Per changelog partition, key to whether its newest committed state is a value (not a tombstone). */
    private final Map<Integer, Map<String, Boolean>> states = new HashMap<>();

    private long outputsCommitted;
    private long excused;

    StreamsChecker(
            LogReads metadata, ConsumerOffsets offsets, MemoryObjectStore objects, History history, StreamsApp app) {
        this.metadata = metadata;
        this.offsets = offsets;
        this.objects = objects;
        this.history = history;
        this.app = app;
    }

    long outputsCommitted() {
        return outputsCommitted;
    }

    /** Input records no thread processed because retention removed them first (the one excuse). */
    long excused() {
        return excused;
    }

    long inputsRead() {
        return inputs.size();
    }

    /**
     * Keys with a committed state in changelog partition {@code partition}: below Kafka's active segment
     * a cleaned log keeps at most one record of each (its newest there, which a tombstone in the active
     * segment does not remove).
     */
    int keys(int partition) {
        return states.getOrDefault(partition, Map.of()).size();
    }

    /** A thread found {@code [from, to)} of {@code input} removed by retention and went past it. */
    void skippedByRetention(TopicPartition input, long from, long to) {
        skipped.computeIfAbsent(input, tp -> new ArrayList<>()).add(new long[] {from, to});
    }

    /** Reads what the input and output logs gained since the last read. */
    void read() {
        for (TopicPartition tp : app.partitions()) {
            if (!tp.topic().equals(StreamsApp.CHANGELOG)) {
                read(tp);
            }
        }
    }

    /**
     * At a drain point: every input record below the group's committed offset of its partition has
     * exactly one committed output, or was skipped because retention removed it.
     */
    void checkDrained() {
        read();
        Map<TopicPartition, CommittedOffset> committed = offsets.committedOffsets(app.applicationId());
        excused = 0;
        inputs.forEach((value, input) -> {
            CommittedOffset offset = committed.get(input.position().topicPartition());
            boolean passed = offset != null && input.position().offset() < offset.offset();
            if (!passed || committedOutput.containsKey(value)) {
                return;
            }
            if (wasSkipped(input.position())) {
                excused++;
            } else {
                history.violation(
                        "ExactlyOnceOutput",
                        "input " + value + " at " + input.position() + " is below the group's committed offset "
                                + offset.offset() + " but has no committed output");
            }
        });
    }

    private boolean wasSkipped(History.Position position) {
        for (long[] range : skipped.getOrDefault(position.topicPartition(), List.of())) {
            if (range[0] <= position.offset() && position.offset() < range[1]) {
                return true;
            }
        }
        return false;
    }

    private void read(TopicPartition tp) {
        long from = readTo.getOrDefault(tp, 0L);
        long logStart = metadata.offsets(tp).logStartOffset();
        if (logStart > from) {
            history.violation(
                    "ExactlyOnceOutput",
                    "retention removed " + tp + " from " + from + " to " + logStart + " before the checker read it");
        }
        List<LogEntry> entries = metadata.entries(List.of(new BatchesQuery(tp, from, Integer.MAX_VALUE)))
                .get(0);
        for (LogEntry entry : entries) {
            if (entry instanceof TransactionMarker marker) {
                if (marker.offset() >= from) {
                    ended(tp, marker);
                }
                continue;
            }
            BatchCoordinate row = (BatchCoordinate) entry;
            if (!objects.contains(row.object())) {
                continue; // NoDanglingReference reports it
            }
            for (StoredBatch batch : StoredBatch.all(objects.get(row.object(), row.range()))) {
                for (StoredRecord record : batch.records()) {
                    long offset = row.baseOffset() + (record.offset() - batch.baseOffset());
                    if (offset >= from) {
                        readRecord(tp, batch, record, offset);
                    }
                }
            }
        }
        if (!entries.isEmpty()) {
            LogEntry last = entries.get(entries.size() - 1);
            readTo.put(
                    tp,
                    Math.max(
                            from,
                            last instanceof TransactionMarker marker
                                    ? marker.nextOffset()
                                    : ((BatchCoordinate) last).nextOffset()));
        }
    }

    private void readRecord(TopicPartition tp, StoredBatch batch, StoredRecord record, long offset) {
        History.Position position = new History.Position(tp, offset);
        String value = History.valueOf(record);
        if (tp.topic().equals(StreamsApp.INPUT)) {
            String key = record.hasKey() ? History.keyOf(record) : null;
            inputs.putIfAbsent(value, new Input(position, key));
        } else if (batch.isTransactional()) {
            outputValue.put(position, value);
            open.computeIfAbsent(tp, p -> new HashMap<>())
                    .computeIfAbsent(batch.producerId(), id -> new ArrayList<>())
                    .add(position);
        } else {
            history.violation("ExactlyOnceOutput", "output " + value + " at " + position + " is not transactional");
        }
    }

    /** A marker ends its producer's open transaction on the partition: its records are committed or gone. */
    private void ended(TopicPartition tp, TransactionMarker marker) {
        Map<Long, List<History.Position>> byProducer = open.get(tp);
        List<History.Position> records = byProducer == null ? null : byProducer.remove(marker.producerId());
        if (records == null || !marker.commit()) {
            return;
        }
        for (History.Position position : records) {
            String input = outputValue.remove(position).substring(2);
            outputsCommitted++;
            Output first = committedOutput.putIfAbsent(input, new Output(position, marker.producerId()));
            if (first != null) {
                history.violation(
                        "ExactlyOnceOutput",
                        "input " + input + " has two committed outputs: at " + first.position() + " by producer "
                                + first.producerId() + " and at " + position + " by producer " + marker.producerId());
            }
            Input read = inputs.get(input);
            if (read != null) {
                states.computeIfAbsent(tp.partition(), p -> new HashMap<>())
                        .put(app.stateKeyOf(read.key()), !StreamsApp.tombstone(input));
            }
        }
    }
}
