package io.floe.kafka.api;

import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.RecordChunk;
import io.floe.kafka.codec.ChunkedRecords;
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
                    ? error(key.partition(), slot.error(), UNKNOWN_OFFSET, UNKNOWN_OFFSET)
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

    private PartitionData data(int partition, PartitionResult result) {
        if (result instanceof PartitionResult.Data data) {
            long highWatermark = data.offsets().highWatermark();
            return new PartitionData()
                    .setPartitionIndex(partition)
                    .setErrorCode(Errors.NONE.code())
                    .setHighWatermark(highWatermark)
                    .setLastStableOffset(highWatermark)
                    .setLogStartOffset(data.offsets().logStartOffset())
                    .setAbortedTransactions(readCommitted ? List.of() : null)
                    .setPreferredReadReplica(-1)
                    .setRecords(records(data));
        }
        PartitionResult.Error failed = (PartitionResult.Error) result;
        return switch (failed.error()) {
            case UNKNOWN_TOPIC_OR_PARTITION ->
                error(partition, Errors.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_OFFSET, UNKNOWN_OFFSET);
            case OFFSET_OUT_OF_RANGE ->
                error(
                        partition,
                        Errors.OFFSET_OUT_OF_RANGE,
                        failed.offsets().highWatermark(),
                        failed.offsets().logStartOffset());
            case STORAGE_ERROR -> error(partition, Errors.KAFKA_STORAGE_ERROR, UNKNOWN_OFFSET, UNKNOWN_OFFSET);
        };
    }

    private PartitionData error(int partition, Errors error, long highWatermark, long logStartOffset) {
        return new PartitionData()
                .setPartitionIndex(partition)
                .setErrorCode(error.code())
                .setHighWatermark(highWatermark)
                .setLastStableOffset(highWatermark)
                .setLogStartOffset(logStartOffset)
                .setAbortedTransactions(readCommitted ? List.of() : null)
                .setPreferredReadReplica(-1)
                .setRecords(MemoryRecords.EMPTY);
    }
}
