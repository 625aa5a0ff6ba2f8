package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.agent.fetch.FetchIsolation;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FetchSessionIdNotFoundException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch (v4-18; topic ids from v13), with incremental fetch sessions (KIP-227): epoch 0 opens a
 * session, epoch -1 fetches without one, later epochs send only changes and get only partitions with
 * news. The agent does the reading and the long poll; with isolation level 1 (read committed) it
 * answers entries below the last stable offset only, with the aborted transactions among them.
 * Records may come as ranges of local object files, which the response carries to the network layer
 * to send with {@code sendfile}.
 */
final class FetchApi implements KafkaApi<FetchRequestData, FetchResponseData> {

    private static final short FIRST_VERSION_WITH_TOPIC_IDS = 13;
    private static final int NO_SESSION = 0;
    private static final int INITIAL_EPOCH = 0;
    private static final int FINAL_EPOCH = -1;
    private static final byte READ_COMMITTED = 1;

    private final Agent agent;
    private final FetchSessionCache sessions;

    FetchApi(Agent agent, FetchSessionCache sessions) {
        this.agent = agent;
        this.sessions = sessions;
    }

    @Override
    public Map<Errors, Integer> errorCounts(FetchResponseData response) {
        return FetchResponse.of(response).errorCounts();
    }

    @Override
    public CompletionStage<FetchResponseData> handle(RequestContext context, FetchRequestData request) {
        boolean byId = context.apiVersion() >= FIRST_VERSION_WITH_TOPIC_IDS;
        Plan plan;
        try {
            plan = plan(request, byId);
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(new FetchResponseData()
                    .setErrorCode(Errors.forException(e).code())
                    .setSessionId(NO_SESSION));
        }
        List<Slot> slots = resolve(plan.entries(), byId);
        List<PartitionQuery> queries = new ArrayList<>();
        slots.stream()
                .filter(slot -> slot.error() == null)
                .forEach(slot -> queries.add(new PartitionQuery(
                        slot.topicPartition(),
                        slot.entry().fetchOffset(),
                        slot.entry().maxBytes())));
        boolean readCommitted = request.isolationLevel() == READ_COMMITTED;
        CompletionStage<FetchResult> fetched = queries.isEmpty()
                ? CompletableFuture.completedFuture(new FetchResult(List.of()))
                : agent.fetch()
                        .fetch(new FetchQuery(
                                queries,
                                Duration.ofMillis(Math.max(0, request.maxWaitMs())),
                                Math.max(0, request.minBytes()),
                                Math.max(0, request.maxBytes()),
                                true,
                                readCommitted ? FetchIsolation.READ_COMMITTED : FetchIsolation.READ_UNCOMMITTED));
        return fetched.thenApply(result -> {
            try {
                return new FetchResponseBuilder(byId, readCommitted)
                        .build(plan.session(), plan.incremental(), slots, result);
            } catch (RuntimeException e) {
                result.release();
                throw e;
            }
        });
    }

    /** Which session the request belongs to, and which partitions to fetch for it. */
    private Plan plan(FetchRequestData request, boolean byId) {
        List<FetchSession.Entry> requested = entries(request, byId);
        int sessionId = request.sessionId();
        int epoch = request.sessionEpoch();
        if (epoch == INITIAL_EPOCH || epoch == FINAL_EPOCH) {
            if (sessionId != NO_SESSION) {
                sessions.remove(sessionId);
            }
            FetchSession created =
                    epoch == INITIAL_EPOCH && !requested.isEmpty() ? sessions.create(byId, requested) : null;
            return new Plan(created, false, requested);
        }
        FetchSession session = sessions.get(sessionId)
                .orElseThrow(() -> new FetchSessionIdNotFoundException("fetch session " + sessionId + " not found"));
        List<FetchSession.Entry> entries = session.update(epoch, byId, requested, forgotten(request, byId));
        if (entries.isEmpty()) {
            sessions.remove(sessionId);
            return new Plan(null, false, List.of());
        }
        return new Plan(session, true, entries);
    }

    private static List<FetchSession.Entry> entries(FetchRequestData request, boolean byId) {
        List<FetchSession.Entry> entries = new ArrayList<>();
        for (FetchTopic topic : request.topics()) {
            for (FetchPartition partition : topic.partitions()) {
                entries.add(new FetchSession.Entry(
                        key(byId, topic.topicId(), topic.topic(), partition.partition()),
                        partition.fetchOffset(),
                        partition.partitionMaxBytes()));
            }
        }
        return entries;
    }

    private static List<FetchSession.Key> forgotten(FetchRequestData request, boolean byId) {
        List<FetchSession.Key> keys = new ArrayList<>();
        for (ForgottenTopic topic : request.forgottenTopicsData()) {
            topic.partitions().forEach(partition -> keys.add(key(byId, topic.topicId(), topic.topic(), partition)));
        }
        return keys;
    }

    private static FetchSession.Key key(boolean byId, Uuid topicId, String topicName, int partition) {
        return byId
                ? new FetchSession.Key(topicId, null, partition)
                : new FetchSession.Key(Uuid.ZERO_UUID, topicName, partition);
    }

    /** Finds each entry's topic; entries whose topic or partition does not exist get their error now. */
    private List<Slot> resolve(List<FetchSession.Entry> entries, boolean byId) {
        Map<Object, Optional<Topic>> topics = new HashMap<>();
        List<Slot> slots = new ArrayList<>(entries.size());
        for (FetchSession.Entry entry : entries) {
            FetchSession.Key key = entry.key();
            Optional<Topic> topic;
            try {
                topic = topics.computeIfAbsent(
                        byId ? key.topicId() : key.topicName(),
                        name -> byId
                                ? agent.topics().find(TopicIds.toFloe(key.topicId()))
                                : agent.topics().find(key.topicName()));
            } catch (RuntimeException e) {
                slots.add(Slot.failed(entry, KafkaErrors.errorOf(e)));
                continue;
            }
            if (topic.isEmpty()) {
                slots.add(Slot.failed(entry, byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION));
            } else if (!topic.get().hasPartition(key.partition())) {
                slots.add(Slot.failed(entry, Errors.UNKNOWN_TOPIC_OR_PARTITION));
            } else {
                slots.add(new Slot(entry, new TopicPartition(topic.get().name(), key.partition()), null));
            }
        }
        return slots;
    }

    private record Plan(FetchSession session, boolean incremental, List<FetchSession.Entry> entries) {}

    /** One partition of the answer: fetched from {@code topicPartition}, or failed with {@code error}. */
    record Slot(FetchSession.Entry entry, TopicPartition topicPartition, Errors error) {

        static Slot failed(FetchSession.Entry entry, Errors error) {
            return new Slot(entry, null, error);
        }
    }
}
