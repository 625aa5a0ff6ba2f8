package io.floe.agent.group.consumer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Kafka's default {@code uniform} assignor: partitions spread as evenly as the subscriptions allow,
 * moving as few as possible from the current target. It keeps every member's current partitions
 * that are still valid, gives each unowned partition to its least loaded subscriber (partitions
 * with the fewest subscribers first), then moves partitions from a member to a subscriber holding at
 * least two fewer until no such move is left. With equal subscriptions the loads differ by at most one.
 */
public final class UniformAssignor implements PartitionAssignor {

    public static final String NAME = "uniform";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Assignment> assign(Map<String, MemberSpec> members, Map<UUID, TopicMetadata> topics) {
        return new Run(members, topics).assign();
    }

    /** One partition, ordered by topic name then index so results do not depend on random topic ids. */
    private record Slot(TopicMetadata topic, int partition) {}

    private static final Comparator<Slot> SLOT_ORDER = Comparator.<Slot, String>comparing(
                    slot -> slot.topic().name())
            .thenComparing(slot -> slot.topic().id())
            .thenComparingInt(Slot::partition);

    /** The working state of one assignment. */
    private static final class Run {

        private final Map<String, MemberSpec> members;
        private final Map<UUID, TopicMetadata> topics;
        private final List<String> memberIds;
        private final Map<String, TreeSet<Slot>> owned = new HashMap<>();
        private final Map<Slot, String> ownerOf = new HashMap<>();
        private final Map<UUID, List<String>> subscribersByTopic = new HashMap<>();

        Run(Map<String, MemberSpec> members, Map<UUID, TopicMetadata> topics) {
            this.members = members;
            this.topics = topics;
            this.memberIds = new ArrayList<>(new TreeSet<>(members.keySet()));
            memberIds.forEach(member -> owned.put(member, new TreeSet<>(SLOT_ORDER)));
        }

        Map<String, Assignment> assign() {
            keepCurrent();
            assignUnowned();
            balance();
            Map<String, Assignment> result = new HashMap<>();
            owned.forEach((member, slots) -> {
                Map<UUID, Set<Integer>> partitions = new HashMap<>();
                slots.forEach(slot -> partitions
                        .computeIfAbsent(slot.topic().id(), t -> new TreeSet<>())
                        .add(slot.partition()));
                result.put(member, new Assignment(partitions));
            });
            return result;
        }

        private void keepCurrent() {
            for (String member : memberIds) {
                MemberSpec spec = members.get(member);
                spec.current().partitions().forEach((topicId, partitions) -> {
                    TopicMetadata topic = topics.get(topicId);
                    if (topic == null || !spec.subscribedTopics().contains(topicId)) {
                        return;
                    }
                    partitions.stream()
                            .filter(p -> p < topic.partitionCount())
                            .map(p -> new Slot(topic, p))
                            .filter(slot -> !ownerOf.containsKey(slot))
                            .forEach(slot -> give(slot, member));
                });
            }
        }

        private void assignUnowned() {
            List<Slot> unowned = new ArrayList<>();
            for (TopicMetadata topic : topics.values()) {
                for (int p = 0; p < topic.partitionCount(); p++) {
                    Slot slot = new Slot(topic, p);
                    if (!ownerOf.containsKey(slot) && !subscribers(slot).isEmpty()) {
                        unowned.add(slot);
                    }
                }
            }
            unowned.sort(Comparator.<Slot>comparingInt(slot -> subscribers(slot).size())
                    .thenComparing(SLOT_ORDER));
            for (Slot slot : unowned) {
                give(slot, leastLoaded(subscribers(slot), Integer.MAX_VALUE));
            }
        }

        /** Each move lowers the sum of squared loads, so the loop ends. */
        private void balance() {
            boolean moved = true;
            while (moved) {
                moved = false;
                List<String> byLoad = new ArrayList<>(memberIds);
                byLoad.sort(Comparator.<String>comparingInt(
                                member -> -owned.get(member).size())
                        .thenComparing(Comparator.naturalOrder()));
                for (String from : byLoad) {
                    moved = moveOneFrom(from);
                    if (moved) {
                        break;
                    }
                }
            }
        }

        private boolean moveOneFrom(String from) {
            int load = owned.get(from).size();
            for (Slot slot : new ArrayList<>(owned.get(from).descendingSet())) {
                String to = leastLoaded(subscribers(slot), load - 1);
                if (to != null) {
                    owned.get(from).remove(slot);
                    give(slot, to);
                    return true;
                }
            }
            return false;
        }

        /** The members subscribed to the slot's topic, in member id order. */
        private List<String> subscribers(Slot slot) {
            return subscribersByTopic.computeIfAbsent(
                    slot.topic().id(),
                    topic -> memberIds.stream()
                            .filter(member ->
                                    members.get(member).subscribedTopics().contains(topic))
                            .toList());
        }

        /** The candidate with the fewest partitions, fewer than {@code loadBelow}; null if none. */
        private String leastLoaded(List<String> candidates, int loadBelow) {
            String best = null;
            for (String candidate : candidates) {
                int load = owned.get(candidate).size();
                if (load < loadBelow && (best == null || load < owned.get(best).size())) {
                    best = candidate;
                }
            }
            return best;
        }

        private void give(Slot slot, String member) {
            owned.get(member).add(slot);
            ownerOf.put(slot, member);
        }
    }
}
