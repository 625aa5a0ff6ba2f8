package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupError;
import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;

/**
 * OffsetFetch (v1-10): one group up to v7, a batch from v8, topic ids from v10; null topics (v2+)
 * ask for every committed offset of the group. A partition without a commit answers offset -1 and
 * empty metadata, as Kafka does. From v9 a member of a consumer-protocol group sends its id and
 * epoch, checked as Kafka does (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH). With require_stable (v7+, sent
 * by read_committed consumers) a partition with offsets pending in an open transaction answers
 * UNSTABLE_OFFSET_COMMIT, which consumers retry until the transaction ends; committed and pending
 * offsets are then read at one point in time ({@link GroupCoordinator#fetchOffsets}). Runs on the
 * blocking executor.
 */
final class OffsetFetchApi implements KafkaApi<OffsetFetchRequestData, OffsetFetchResponseData> {

    private static final long NO_OFFSET = -1;

    private static final short FIRST_VERSION_WITH_REQUIRE_STABLE = 7;

    private final GroupCoordinator groups;
    private final GroupTopics topics;

    OffsetFetchApi(GroupCoordinator groups, GroupTopics topics) {
        this.groups = groups;
        this.topics = topics;
    }

    @Override
    public CompletionStage<OffsetFetchResponseData> handle(RequestContext context, OffsetFetchRequestData request) {
        return CompletableFuture.completedFuture(respond(request, context.apiVersion()));
    }

    private OffsetFetchResponseData respond(OffsetFetchRequestData request, short version) {
        boolean byId = OffsetFetchRequest.useTopicIds(version);
        boolean requireStable = version >= FIRST_VERSION_WITH_REQUIRE_STABLE && request.requireStable();
        List<OffsetFetchResponseGroup> answers = new ArrayList<>();
        for (OffsetFetchRequestGroup group : groupsOf(request, version)) {
            answers.add(fetchQuietly(group, byId, version, requireStable));
        }
        return new OffsetFetchResponse.Builder(answers).build(version).data().setThrottleTimeMs(0);
    }

    /** Before v8 the request carries one group in top-level fields. */
    private static List<OffsetFetchRequestGroup> groupsOf(OffsetFetchRequestData request, short version) {
        if (version >= OffsetFetchRequest.BATCH_MIN_VERSION) {
            return request.groups();
        }
        List<OffsetFetchRequestTopics> topics = request.topics() == null
                ? null
                : request.topics().stream()
                        .map(t -> new OffsetFetchRequestTopics()
                                .setName(t.name())
                                .setPartitionIndexes(t.partitionIndexes()))
                        .toList();
        return List.of(
                new OffsetFetchRequestGroup().setGroupId(request.groupId()).setTopics(topics));
    }

    private OffsetFetchResponseGroup fetchQuietly(
            OffsetFetchRequestGroup group, boolean byId, short version, boolean requireStable) {
        if (group.groupId().isEmpty()) {
            return OffsetFetchResponse.groupError(group, Errors.INVALID_GROUP_ID, version);
        }
        try {
            GroupError member = groups.validateOffsetFetch(group.groupId(), group.memberId(), group.memberEpoch());
            if (member != GroupError.NONE) {
                return OffsetFetchResponse.groupError(group, GroupErrorCodes.of(member), version);
            }
            // With require_stable, committed and pending offsets come from one read: an EndTxn between two
            // reads would show the offset it replaced as stable.
            FetchedOffsets fetched = requireStable
                    ? groups.fetchOffsets(group.groupId())
                    : new FetchedOffsets(groups.committedOffsets(group.groupId()), Set.of());
            Map<TopicPartition, CommittedOffset> committed = fetched.committed();
            List<OffsetFetchResponseTopics> answered = group.topics() == null
                    ? allTopics(committed, byId)
                    : requestedTopics(group.topics(), committed, byId);
            markUnstable(answered, fetched.pending(), byId);
            return new OffsetFetchResponseGroup().setGroupId(group.groupId()).setTopics(answered);
        } catch (RuntimeException e) {
            return OffsetFetchResponse.groupError(group, KafkaErrors.errorOf(e), version);
        }
    }

    private List<OffsetFetchResponseTopics> requestedTopics(
            List<OffsetFetchRequestTopics> requested, Map<TopicPartition, CommittedOffset> committed, boolean byId) {
        List<OffsetFetchResponseTopics> answered = new ArrayList<>();
        for (OffsetFetchRequestTopics topic : requested) {
            Optional<String> name = byId ? topics.byId(topic.topicId()).map(Topic::name) : Optional.of(topic.name());
            List<OffsetFetchResponsePartitions> partitions = new ArrayList<>();
            for (int partition : topic.partitionIndexes()) {
                CommittedOffset offset = name.isEmpty() || partition < 0
                        ? null
                        : committed.get(new TopicPartition(name.get(), partition));
                OffsetFetchResponsePartitions answer = partition(partition, offset);
                if (name.isEmpty()) {
                    answer.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                }
                partitions.add(answer);
            }
            answered.add(new OffsetFetchResponseTopics()
                    .setName(topic.name())
                    .setTopicId(topic.topicId())
                    .setPartitions(partitions));
        }
        return answered;
    }

    /** Partitions with offsets pending in an open transaction answer UNSTABLE_OFFSET_COMMIT and no offset. */
    private void markUnstable(List<OffsetFetchResponseTopics> answered, Set<TopicPartition> pending, boolean byId) {
        if (pending.isEmpty()) {
            return;
        }
        for (OffsetFetchResponseTopics topic : answered) {
            Optional<String> name = byId ? topics.byId(topic.topicId()).map(Topic::name) : Optional.of(topic.name());
            if (name.isEmpty()) {
                continue;
            }
            for (OffsetFetchResponsePartitions partition : topic.partitions()) {
                if (partition.partitionIndex() >= 0
                        && pending.contains(new TopicPartition(name.get(), partition.partitionIndex()))) {
                    partition
                            .setCommittedOffset(NO_OFFSET)
                            .setCommittedLeaderEpoch(CommittedOffset.NO_LEADER_EPOCH)
                            .setMetadata("")
                            .setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code());
                }
            }
        }
    }

    /** Every committed offset; with topic ids, offsets of topics that no longer exist are left out. */
    private List<OffsetFetchResponseTopics> allTopics(Map<TopicPartition, CommittedOffset> committed, boolean byId) {
        Map<String, OffsetFetchResponseTopics> byTopic = new LinkedHashMap<>();
        committed.forEach((partition, offset) -> {
            OffsetFetchResponseTopics topic = byTopic.computeIfAbsent(partition.topic(), name -> {
                OffsetFetchResponseTopics created = new OffsetFetchResponseTopics().setName(name);
                if (byId) {
                    topics.byName(name).ifPresent(found -> created.setTopicId(GroupTopics.idOf(found)));
                }
                return created;
            });
            topic.partitions().add(partition(partition.partition(), offset));
        });
        return byTopic.values().stream()
                .filter(topic -> !byId || !topic.topicId().equals(Uuid.ZERO_UUID))
                .toList();
    }

    private static OffsetFetchResponsePartitions partition(int index, CommittedOffset offset) {
        OffsetFetchResponsePartitions answer =
                new OffsetFetchResponsePartitions().setPartitionIndex(index).setErrorCode(Errors.NONE.code());
        if (offset == null) {
            return answer.setCommittedOffset(NO_OFFSET)
                    .setCommittedLeaderEpoch(CommittedOffset.NO_LEADER_EPOCH)
                    .setMetadata("");
        }
        return answer.setCommittedOffset(offset.offset())
                .setCommittedLeaderEpoch(offset.leaderEpoch())
                .setMetadata(offset.metadata());
    }

    @Override
    public Map<Errors, Integer> errorCounts(OffsetFetchResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        if (response.groups().isEmpty()) {
            counts.put(Errors.forCode(response.errorCode()), 1);
            response.topics()
                    .forEach(t ->
                            t.partitions().forEach(p -> counts.merge(Errors.forCode(p.errorCode()), 1, Integer::sum)));
        }
        response.groups().forEach(g -> counts.merge(Errors.forCode(g.errorCode()), 1, Integer::sum));
        return counts;
    }
}
