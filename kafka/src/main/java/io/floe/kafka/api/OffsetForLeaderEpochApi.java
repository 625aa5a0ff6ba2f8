package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;

/**
 * OffsetForLeaderEpoch (v2-4), which consumers send to validate their position after a leader
 * change or a seek with a leader epoch. A Floe partition never changes leader epoch: it is
 * {@link #LEADER_EPOCH} for its whole life, as Metadata and ListOffsets report, so the end offset of
 * that epoch is the high watermark and every other epoch is undefined. A client whose current epoch
 * is newer than Floe's gets UNKNOWN_LEADER_EPOCH, an older one FENCED_LEADER_EPOCH, as from Kafka.
 */
final class OffsetForLeaderEpochApi
        implements KafkaApi<OffsetForLeaderEpochRequestData, OffsetForLeaderEpochResponseData> {

    /** The one leader epoch of every Floe partition. */
    static final int LEADER_EPOCH = 0;
    /** The client does not know the current epoch and asks not to be fenced. */
    private static final int NO_CURRENT_EPOCH = -1;

    private final Agent agent;

    OffsetForLeaderEpochApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(OffsetForLeaderEpochResponseData response) {
        return new OffsetsForLeaderEpochResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<OffsetForLeaderEpochResponseData> handle(
            RequestContext context, OffsetForLeaderEpochRequestData request) {
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData().setThrottleTimeMs(0);
        for (OffsetForLeaderTopic requested : request.topics()) {
            OffsetForLeaderTopicResult result = new OffsetForLeaderTopicResult().setTopic(requested.topic());
            for (OffsetForLeaderPartition partition : requested.partitions()) {
                result.partitions().add(endOffset(requested.topic(), partition));
            }
            response.topics().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }

    private EpochEndOffset endOffset(String name, OffsetForLeaderPartition request) {
        EpochEndOffset answer = new EpochEndOffset()
                .setPartition(request.partition())
                .setLeaderEpoch(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH)
                .setEndOffset(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET);
        try {
            Optional<Topic> topic = agent.topics().find(name);
            if (topic.isEmpty() || !topic.get().hasPartition(request.partition())) {
                return answer.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            }
            int current = request.currentLeaderEpoch();
            if (current != NO_CURRENT_EPOCH && current > LEADER_EPOCH) {
                return answer.setErrorCode(Errors.UNKNOWN_LEADER_EPOCH.code());
            }
            if (current != NO_CURRENT_EPOCH && current < LEADER_EPOCH) {
                return answer.setErrorCode(Errors.FENCED_LEADER_EPOCH.code());
            }
            if (request.leaderEpoch() != LEADER_EPOCH) {
                // Kafka's answer for an epoch its epoch cache does not hold: undefined, without an error.
                return answer.setErrorCode(Errors.NONE.code());
            }
            long highWatermark = agent.offsets()
                    .offsets(new TopicPartition(name, request.partition()))
                    .highWatermark();
            return answer.setErrorCode(Errors.NONE.code())
                    .setLeaderEpoch(LEADER_EPOCH)
                    .setEndOffset(highWatermark);
        } catch (RuntimeException e) {
            return answer.setErrorCode(KafkaErrors.errorOf(e).code());
        }
    }
}
