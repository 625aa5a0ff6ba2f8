package io.floe.agent.group;

import io.floe.agent.group.consumer.RangeAssignor;
import io.floe.agent.group.consumer.UniformAssignor;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of consumer-protocol (KIP-848) groups, with Kafka's defaults and names. Unlike the
 * classic protocol, the coordinator sets the session timeout and heartbeat interval, not the client.
 *
 * @param sessionTimeout how long a member may go without a heartbeat before it is removed
 *     ({@code group.consumer.session.timeout.ms}, 45 s)
 * @param heartbeatInterval how often members are told to heartbeat
 *     ({@code group.consumer.heartbeat.interval.ms}, 5 s); shorter than the session timeout
 * @param assignors the server-side assignors members may ask for, the first being the default
 *     ({@code group.consumer.assignors}: uniform, range)
 * @param regexRefreshInterval how long the topics a subscription regex matches are reused before
 *     the topic list is read again (Kafka refreshes at most every 10 s)
 */
public record ConsumerGroupConfig(
        Duration sessionTimeout, Duration heartbeatInterval, List<String> assignors, Duration regexRefreshInterval) {

    private static final Set<String> KNOWN_ASSIGNORS = Set.of(UniformAssignor.NAME, RangeAssignor.NAME);

    public ConsumerGroupConfig {
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(regexRefreshInterval, "regexRefreshInterval");
        assignors = List.copyOf(assignors);
        require(
                heartbeatInterval.toMillis() > 0 && heartbeatInterval.compareTo(sessionTimeout) < 0,
                "need 0 < consumer heartbeat interval < consumer session timeout, got " + heartbeatInterval + " and "
                        + sessionTimeout);
        require(
                sessionTimeout.toMillis() <= Integer.MAX_VALUE,
                "consumer session timeout must fit in an int of milliseconds, got " + sessionTimeout);
        require(
                !assignors.isEmpty() && KNOWN_ASSIGNORS.containsAll(assignors),
                "consumer assignors must be a non-empty list of " + KNOWN_ASSIGNORS + ", got " + assignors);
        require(!regexRefreshInterval.isNegative(), "regex refresh interval must be >= 0, got " + regexRefreshInterval);
    }

    /** Kafka's defaults. */
    public static ConsumerGroupConfig defaults() {
        return new ConsumerGroupConfig(
                Duration.ofSeconds(45),
                Duration.ofSeconds(5),
                List.of(UniformAssignor.NAME, RangeAssignor.NAME),
                Duration.ofSeconds(10));
    }

    public ConsumerGroupConfig withTimeouts(Duration session, Duration heartbeat) {
        return new ConsumerGroupConfig(session, heartbeat, assignors, regexRefreshInterval);
    }

    public ConsumerGroupConfig withRegexRefreshInterval(Duration interval) {
        return new ConsumerGroupConfig(sessionTimeout, heartbeatInterval, assignors, interval);
    }

    /** The assignor of members that do not ask for one. */
    public String defaultAssignor() {
        return assignors.get(0);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
