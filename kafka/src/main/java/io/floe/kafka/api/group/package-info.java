/**
 * The consumer group APIs of Kafka's classic protocol (FindCoordinator, JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, OffsetDelete, ListGroups, DescribeGroups,
 * DeleteGroups) and of the consumer protocol of KIP-848 (ConsumerGroupHeartbeat,
 * ConsumerGroupDescribe), one class each, translating to and from the agent's
 * {@link io.floe.agent.group.GroupCoordinator}. Classic membership requests touch only memory and
 * run on the event loop; consumer heartbeats, which read topic metadata, and everything that reads
 * or writes committed offsets run on the blocking executor.
 */
package io.floe.kafka.api.group;
