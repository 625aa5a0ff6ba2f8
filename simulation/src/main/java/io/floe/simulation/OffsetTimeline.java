package io.floe.simulation;

import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.transaction.TransactionOutcome;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * One consumer group's offsets as the shared store held them, state after state, in the order the
 * store calls applied, with the group's generations in the order they formed; and two invariants of
 * KIP-447 checked against them:
 *
 * <ul>
 *   <li>OffsetRetention: while the group is never empty for as long as {@code offsets.retention}, none
 *       of its offsets expires (KIP-211), however long ago a partition's offset was committed;
 *   <li>StableOffsetFetch: an OffsetFetch with {@code require_stable} answers, for each partition,
 *       either UNSTABLE_OFFSET_COMMIT while offsets of it were pending, or the committed offset of a
 *       moment when none were pending, some moment between the agent receiving the request and
 *       answering it (linearizable);
 *   <li>GenerationFencing: once a member of a generation has fetched a partition's offsets, no
 *       TxnOffsetCommit of that partition from a member of an earlier generation applies (a zombie's
 *       offsets, with its output, would land after the new owner started from the old offset).
 * </ul>
 *
 * The shared store's observer ({@link FaultyMetadataStore#observed}) reports every call as it applies;
 * after each that may change offsets the state is read from the store itself (not through any agent).
 */
final class OffsetTimeline {

    /** The store calls that may change a group's committed or pending offsets. */
    private static final Set<MetadataOperation> OFFSET_CHANGES = EnumSet.of(
            MetadataOperation.COMMIT_OFFSETS,
            MetadataOperation.COMMIT_OFFSETS_FENCED,
            MetadataOperation.DELETE_OFFSETS,
            MetadataOperation.DELETE_GROUP_OFFSETS,
            MetadataOperation.DELETE_TOPIC_OFFSETS,
            MetadataOperation.EXPIRE_OFFSETS,
            MetadataOperation.COMMIT_PENDING_OFFSETS,
            MetadataOperation.END_TRANSACTION,
            MetadataOperation.ABORT_EXPIRED,
            MetadataOperation.INIT_PRODUCER,
            MetadataOperation.WRITE_MARKER,
            MetadataOperation.EXPIRE_TRANSACTIONAL_IDS,
            MetadataOperation.DELETE_TOPIC);

    /** The group's offsets after one store call: committed offset by partition, and the partitions pending. */
    record State(Map<TopicPartition, Long> committed, Set<TopicPartition> pending) {

        String describe(TopicPartition partition) {
            return (pending.contains(partition) ? "pending over " : "") + committed.getOrDefault(partition, -1L);
        }
    }

    /** A generation of the group, named by its id and leader (ids restart with each coordinator term). */
    record Generation(int generationId, String leaderId) {

        @Override
        public String toString() {
            return generationId + "/" + leaderId.substring(0, Math.min(8, leaderId.length()));
        }
    }

    private final ConsumerOffsets offsets;
    private final String groupId;
    private final History history;
    private final List<State> states = new ArrayList<>();
    private final Map<Generation, Long> formedAt = new HashMap<>();
    private final Map<TopicPartition, Generation> fetchedBy = new TreeMap<>(
            java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
    /** The TxnOffsetCommits being handled, innermost last: a nested task's request is on top of an outer one. */
    private final Deque<Generation> requests = new ArrayDeque<>();

    private long ticks;
    private boolean offsetsKept;
    private long fetchesChecked;
    private long commitsChecked;

    /** {@code offsets}: the shared store itself, read without faults. */
    OffsetTimeline(ConsumerOffsets offsets, String groupId, History history) {
        this.offsets = offsets;
        this.groupId = groupId;
        this.history = history;
        states.add(new State(Map.of(), Set.of()));
    }

    String groupId() {
        return groupId;
    }

    long fetchesChecked() {
        return fetchesChecked;
    }

    long commitsChecked() {
        return commitsChecked;
    }

    /** A store call applied (or failed) in the shared store: the group's offsets are read again when it may have changed them. */
    void applied(MetadataOperation operation) {
        if (!OFFSET_CHANGES.contains(operation)) {
            return;
        }
        Map<TopicPartition, Long> committed = new HashMap<>();
        FetchedOffsets fetched = offsets.fetchOffsets(groupId);
        fetched.committed().forEach((tp, offset) -> committed.put(tp, offset.offset()));
        State now = new State(Map.copyOf(committed), fetched.pending());
        State before = states.get(states.size() - 1);
        if (!now.equals(before)) {
            states.add(now);
        }
        if (offsetsKept && operation == MetadataOperation.EXPIRE_OFFSETS) {
            before.committed().forEach((partition, offset) -> {
                if (!committed.containsKey(partition)) {
                    history.violation(
                            "OffsetRetention",
                            groupId + "'s offset " + offset + " of " + partition + " expired, although the group has"
                                    + " not been empty for offsets.retention (KIP-211: offsets expire only once their"
                                    + " group has been empty that long)");
                }
            });
        }
    }

    /**
     * From now on ({@code kept}) the group is never empty for as long as offsets.retention (its
     * application runs, or stops for less): none of its offsets may expire. Off when it stops for good.
     */
    void offsetsKept(boolean kept) {
        offsetsKept = kept;
    }

    /** The number of the current state: an OffsetFetch notes it before its first store call and after its last. */
    int now() {
        return states.size() - 1;
    }

    /** A member got the join answer of a generation: it formed no later than now. */
    void formed(Generation generation) {
        formedAt.putIfAbsent(generation, ++ticks);
    }

    /** Runs {@code request}, a TxnOffsetCommit of a member of {@code generation}, so the store's apply can be checked. */
    <T> T committing(Generation generation, Supplier<T> request) {
        requests.addLast(generation);
        try {
            return request.get();
        } finally {
            requests.removeLast();
        }
    }

    /**
     * GenerationFencing, as a TxnOffsetCommit applies in the shared store: its member's generation must
     * not be older than that of a member that already fetched one of its partitions.
     */
    void pendingApplied(String group, Map<TopicPartition, CommittedOffset> pending, TransactionOutcome outcome) {
        if (!group.equals(groupId) || requests.isEmpty() || !(outcome instanceof TransactionOutcome.Done)) {
            return;
        }
        commitsChecked++;
        Generation sender = requests.peekLast();
        long sent = formedAt.getOrDefault(sender, Long.MAX_VALUE);
        pending.forEach((partition, offset) -> {
            Generation reader = fetchedBy.get(partition);
            if (reader != null && formedAt.get(reader) > sent) {
                history.violation(
                        "GenerationFencing",
                        "a TxnOffsetCommit of " + partition + " at " + offset.offset() + " from a member of generation "
                                + sender + " applied after a member of the later generation " + reader
                                + " had fetched the partition's offsets (the store now holds "
                                + states.get(now()).describe(partition) + ")");
            }
        });
    }

    /**
     * StableOffsetFetch for an OffsetFetch with {@code require_stable} by a member of {@code generation}
     * that began when the state was {@code from} and answered {@code answer} when it was {@code to}.
     * Partitions answered stable are fetched by the generation from now on.
     */
    void fetched(Generation generation, int from, int to, Map<TopicPartition, GroupRequests.FetchedOffset> answer) {
        fetchesChecked++;
        answer.forEach((partition, fetched) -> {
            boolean possible = false;
            StringBuilder seen = new StringBuilder();
            for (int i = from; i <= to && !possible; i++) {
                State state = states.get(i);
                boolean pending = state.pending().contains(partition);
                possible = fetched.unstable()
                        ? pending
                        : !pending && state.committed().getOrDefault(partition, -1L) == fetched.offset();
                seen.append(i == from ? "" : ", then ").append(state.describe(partition));
            }
            if (!possible) {
                history.violation(
                        "StableOffsetFetch",
                        "OffsetFetch(require_stable) of " + groupId + " answered " + partition + " "
                                + (fetched.unstable() ? "UNSTABLE_OFFSET_COMMIT" : "offset " + fetched.offset())
                                + " while the store held " + seen);
            }
            if (!fetched.unstable()) {
                Generation before = fetchedBy.get(partition);
                if (before == null || formedAt.getOrDefault(before, 0L) <= formedAt.getOrDefault(generation, 0L)) {
                    fetchedBy.put(partition, generation);
                }
            }
        });
    }
}
