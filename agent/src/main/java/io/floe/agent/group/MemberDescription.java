package io.floe.agent.group;

/**
 * One member as DescribeGroups shows it.
 *
 * @param memberId the member
 * @param groupInstanceId its instance id, or null
 * @param clientId the client id it joined with
 * @param clientHost the address it joined from
 * @param metadata its metadata for the selected protocol; empty unless the group is Stable
 * @param assignment its current assignment, empty before the first sync
 */
public record MemberDescription(
        String memberId,
        String groupInstanceId,
        String clientId,
        String clientHost,
        byte[] metadata,
        byte[] assignment) {}
