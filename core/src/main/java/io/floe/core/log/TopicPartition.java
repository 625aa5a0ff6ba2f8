package io.floe.core.log;

import java.util.Objects;

/** One partition of one topic, named as clients name it. */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, got " + partition + " for topic " + topic);
        }
    }

    @Override
    public int compareTo(TopicPartition other) {
        int byTopic = topic.compareTo(other.topic);
        return byTopic != 0 ? byTopic : Integer.compare(partition, other.partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
