package io.floe.agent.group;

import java.time.Duration;
import java.util.Objects;

/**
 * The group coordinator's settings, with Kafka's defaults and names.
 *
 * @param initialRebalanceDelay how long a new (Empty) group waits for more members before its first
 *     generation, extended by each joining member up to the rebalance timeout
 *     ({@code group.initial.rebalance.delay.ms}, 3 s)
 * @param minSessionTimeout the shortest session timeout a member may ask for
 *     ({@code group.min.session.timeout.ms}, 6 s)
 * @param maxSessionTimeout the longest ({@code group.max.session.timeout.ms}, 30 min)
 * @param newMemberJoinTimeout how long a new member's JoinGroup may wait in a rebalance before the
 *     member is dropped (5 min, as Kafka)
 * @param maxGroupSize members per group ({@code group.max.size}; Kafka has no limit by default,
 *     Floe caps it so one group cannot exhaust memory)
 * @param offsetMetadataMaxChars longest metadata string of a commit ({@code offset.metadata.max.bytes},
 *     4096, compared with the string's length as Kafka does)
 * @param offsetsRetention how long offsets of a group without members are kept
 *     ({@code offsets.retention.minutes}, 7 days)
 * @param offsetsRetentionCheckInterval how often expired offsets are removed
 *     ({@code offsets.retention.check.interval.ms}, 10 min)
 * @param consumerGroups the settings of consumer-protocol (KIP-848) groups
 */
public record GroupCoordinatorConfig(
        Duration initialRebalanceDelay,
        Duration minSessionTimeout,
        Duration maxSessionTimeout,
        Duration newMemberJoinTimeout,
        int maxGroupSize,
        int offsetMetadataMaxChars,
        Duration offsetsRetention,
        Duration offsetsRetentionCheckInterval,
        ConsumerGroupConfig consumerGroups) {

    public GroupCoordinatorConfig {
        Objects.requireNonNull(initialRebalanceDelay, "initialRebalanceDelay");
        Objects.requireNonNull(minSessionTimeout, "minSessionTimeout");
        Objects.requireNonNull(maxSessionTimeout, "maxSessionTimeout");
        Objects.requireNonNull(newMemberJoinTimeout, "newMemberJoinTimeout");
        Objects.requireNonNull(offsetsRetention, "offsetsRetention");
        Objects.requireNonNull(offsetsRetentionCheckInterval, "offsetsRetentionCheckInterval");
        Objects.requireNonNull(consumerGroups, "consumerGroups");
        require(
                !initialRebalanceDelay.isNegative(),
                "initial rebalance delay must be >= 0, got " + initialRebalanceDelay);
        require(
                !minSessionTimeout.isNegative() && minSessionTimeout.compareTo(maxSessionTimeout) <= 0,
                "need 0 <= min session timeout <= max session timeout, got " + minSessionTimeout + " and "
                        + maxSessionTimeout);
        require(
                newMemberJoinTimeout.toMillis() > 0,
                "new member join timeout must be > 0, got " + newMemberJoinTimeout);
        require(maxGroupSize >= 1, "max group size must be >= 1, got " + maxGroupSize);
        require(offsetMetadataMaxChars >= 0, "offset metadata max must be >= 0, got " + offsetMetadataMaxChars);
        require(offsetsRetention.toMillis() > 0, "offsets retention must be > 0, got " + offsetsRetention);
        require(
                offsetsRetentionCheckInterval.toMillis() > 0,
                "offsets retention check interval must be > 0, got " + offsetsRetentionCheckInterval);
    }

    /** Kafka's defaults, with at most 10000 members per group. */
    public static GroupCoordinatorConfig defaults() {
        return new GroupCoordinatorConfig(
                Duration.ofSeconds(3),
                Duration.ofSeconds(6),
                Duration.ofMinutes(30),
                Duration.ofMinutes(5),
                10_000,
                4096,
                Duration.ofDays(7),
                Duration.ofMinutes(10),
                ConsumerGroupConfig.defaults());
    }

    public GroupCoordinatorConfig withInitialRebalanceDelay(Duration delay) {
        return new GroupCoordinatorConfig(
                delay,
                minSessionTimeout,
                maxSessionTimeout,
                newMemberJoinTimeout,
                maxGroupSize,
                offsetMetadataMaxChars,
                offsetsRetention,
                offsetsRetentionCheckInterval,
                consumerGroups);
    }

    public GroupCoordinatorConfig withMinSessionTimeout(Duration timeout) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelay,
                timeout,
                maxSessionTimeout,
                newMemberJoinTimeout,
                maxGroupSize,
                offsetMetadataMaxChars,
                offsetsRetention,
                offsetsRetentionCheckInterval,
                consumerGroups);
    }

    public GroupCoordinatorConfig withMaxGroupSize(int size) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelay,
                minSessionTimeout,
                maxSessionTimeout,
                newMemberJoinTimeout,
                size,
                offsetMetadataMaxChars,
                offsetsRetention,
                offsetsRetentionCheckInterval,
                consumerGroups);
    }

    public GroupCoordinatorConfig withOffsetsRetention(Duration retention, Duration checkInterval) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelay,
                minSessionTimeout,
                maxSessionTimeout,
                newMemberJoinTimeout,
                maxGroupSize,
                offsetMetadataMaxChars,
                retention,
                checkInterval,
                consumerGroups);
    }

    public GroupCoordinatorConfig withConsumerGroups(ConsumerGroupConfig consumer) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelay,
                minSessionTimeout,
                maxSessionTimeout,
                newMemberJoinTimeout,
                maxGroupSize,
                offsetMetadataMaxChars,
                offsetsRetention,
                offsetsRetentionCheckInterval,
                consumer);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
