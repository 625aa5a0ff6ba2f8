/**
 * The consumer group APIs of Kafka's classic protocol (FindCoordinator, JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, OffsetDelete, ListGroups, DescribeGroups,
 * DeleteGroups), one class each, translating to and from the agent's
 * {@link io.floe.agent.group.GroupCoordinator}. Membership requests touch only memory and run on
 * the event loop; everything that reads or writes committed offsets runs on the blocking executor.
 */
package io.floe.kafka.api.group;
