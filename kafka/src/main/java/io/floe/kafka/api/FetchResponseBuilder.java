package io.floe.kafka.api;

import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.RecordChunk;
import io.floe.kafka.codec.ChunkedRecords;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/** Turns the agent's fetch result into a Fetch response, keeping only what a session must be told. */
final class FetchResponseBuilder {

    private static final long UNKNOWN_OFFSET = -1;

    private final boolean byId;
    private final boolean readCommitted;

    FetchResponseBuilder(boolean byId, boolean readCommitted) {
        this.byId = byId;
        this.readCommitted = readCommitted;
    }

    /**
     * The response for {@code slots}, whose fetched ones match {@code result}'s partitions in order.
     * With an incremental session only partitions with records, changed markers or errors are kept.
     */
    FetchResponseData build(FetchSession session, boolean incremental, List<FetchApi.Slot> slots, FetchResult result) {
        FetchResponseData response = new FetchResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code())
                .setSessionId(session == null ? 0 : session.id());
        Iterator<PartitionResult> fetched = result.partitions().iterator();
        FetchableTopicResponse topic = null;
        for (FetchApi.Slot slot : slots) {
            FetchSession.Key key = slot.entry().key();
            PartitionData data = slot.error() != null
                    ? error(key.partition(), slot.error(), LogOffsets.EMPTY, false)
                    : data(key.partition(), next(fetched, slot));
            boolean mustRespond = session == null || session.recordResponse(key, data);
            if (incremental && !mustRespond) {
                continue;
            }
            if (topic == null || !sameTopic(topic, key)) {
                topic = byId
                        ? new FetchableTopicResponse().setTopicId(key.topicId())
                        : new FetchableTopicResponse().setTopic(key.topicName());
                response.responses().add(topic);
            }
            topic.partitions().add(data);
        }
        return response;
    }

    private boolean sameTopic(FetchableTopicResponse topic, FetchSession.Key key) {
        return byId ? topic.topicId().equals(key.topicId()) : Objects.equals(topic.topic(), key.topicName());
    }

    private static PartitionResult next(Iterator<PartitionResult> fetched, FetchApi.Slot slot) {
        if (!fetched.hasNext()) {
            throw new IllegalStateException("fetch result has no answer for " + slot.topicPartition());
        }
        PartitionResult result = fetched.next();
        if (!result.topicPartition().equals(slot.topicPartition())) {
            throw new IllegalStateException("fetch result answers " + result.topicPartition() + " where "
                    + slot.topicPartition() + " was asked");
        }
        return result;
    }

    /**
     * One chunk in memory as memory records (what clients' own decoders expect); several, or chunks of
     * object files, written chunk by chunk.
     */
    private static BaseRecords records(PartitionResult.Data data) {
        if (data.chunks().isEmpty()) {
            return MemoryRecords.EMPTY;
        }
        return data.chunks().size() == 1 && data.chunks().get(0) instanceof RecordChunk.InMemory only
                ? MemoryRecords.readableRecords(only.bytes())
                : new ChunkedRecords(data.chunks());
    }

    /**
     * Both isolation levels get the last stable offset; read committed gets the aborted transactions
     * (a list, empty when none), read uncommitted none (null), as Kafka answers.
     */
    private PartitionData data(int partition, PartitionResult result) {
        if (result instanceof PartitionResult.Data data) {
            return new PartitionData()
                    .setPartitionIndex(partition)
                    .setErrorCode(Errors.NONE.code())
                    .setHighWatermark(data.offsets().highWatermark())
                    .setLastStableOffset(data.offsets().lastStableOffset())
                    .setLogStartOffset(data.offsets().logStartOffset())
                    .setAbortedTransactions(readCommitted ? aborted(data.abortedTransactions()) : null)
                    .setPreferredReadReplica(-1)
                    .setRecords(records(data));
        }
        PartitionResult.Error failed = (PartitionResult.Error) result;
        return switch (failed.error()) {
            case UNKNOWN_TOPIC_OR_PARTITION ->
                error(partition, Errors.UNKNOWN_TOPIC_OR_PARTITION, LogOffsets.EMPTY, false);
            case OFFSET_OUT_OF_RANGE -> error(partition, Errors.OFFSET_OUT_OF_RANGE, failed.offsets(), true);
            case STORAGE_ERROR -> error(partition, Errors.KAFKA_STORAGE_ERROR, LogOffsets.EMPTY, false);
        };
    }

    private static List<FetchResponseData.AbortedTransaction> aborted(List<AbortedTransaction> transactions) {
        List<FetchResponseData.AbortedTransaction> aborted = new ArrayList<>(transactions.size());
        for (AbortedTransaction transaction : transactions) {
            aborted.add(new FetchResponseData.AbortedTransaction()
                    .setProducerId(transaction.producerId())
                    .setFirstOffset(transaction.firstOffset()));
        }
        return aborted;
    }

    /** An error answer: with the partition's offsets when {@code known}, else -1 for each. */
    private PartitionData error(int partition, Errors error, LogOffsets offsets, boolean known) {
        return new PartitionData()
                .setPartitionIndex(partition)
                .setErrorCode(error.code())
                .setHighWatermark(known ? offsets.highWatermark() : UNKNOWN_OFFSET)
                .setLastStableOffset(known ? offsets.lastStableOffset() : UNKNOWN_OFFSET)
                .setLogStartOffset(known ? offsets.logStartOffset() : UNKNOWN_OFFSET)
                .setAbortedTransactions(readCommitted ? List.of() : null)
                .setPreferredReadReplica(-1)
                .setRecords(MemoryRecords.EMPTY);
    }
}
