package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupListing;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListGroups (v0-5), with the states filter of v4 and the types filter of v5, both case-insensitive
 * as in Kafka. Classic groups list as type "classic", consumer-protocol groups as "consumer" (with
 * protocol type "consumer" and their own states: Empty, Assigning, Reconciling, Stable). Runs on
 * the blocking executor: groups known only by their stored offsets are listed too, as classic.
 */
final class ListGroupsApi implements KafkaApi<ListGroupsRequestData, ListGroupsResponseData> {

    private final GroupCoordinator groups;

    ListGroupsApi(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletionStage<ListGroupsResponseData> handle(RequestContext context, ListGroupsRequestData request) {
        Set<String> states = lowerCase(request.statesFilter());
        Set<String> types = lowerCase(request.typesFilter());
        List<ListedGroup> listed = groups.listGroups().stream()
                .filter(group ->
                        states.isEmpty() || states.contains(group.state().toLowerCase(Locale.ROOT)))
                .filter(group -> types.isEmpty() || types.contains(group.type().label()))
                .map(ListGroupsApi::toWire)
                .toList();
        return CompletableFuture.completedFuture(new ListGroupsResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code())
                .setGroups(listed));
    }

    private static ListedGroup toWire(GroupListing group) {
        return new ListedGroup()
                .setGroupId(group.groupId())
                .setProtocolType(group.protocolType())
                .setGroupState(group.state())
                .setGroupType(group.type().label());
    }

    private static Set<String> lowerCase(List<String> filter) {
        return filter.stream()
                .map(value -> value.trim().toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet());
    }

    @Override
    public Map<Errors, Integer> errorCounts(ListGroupsResponseData response) {
        return Map.of(Errors.forCode(response.errorCode()), 1);
    }
}
