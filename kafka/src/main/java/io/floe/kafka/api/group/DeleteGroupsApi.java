package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteGroups (v0-3): each group with its committed offsets, refused with NON_EMPTY_GROUP while it
 * has members and GROUP_ID_NOT_FOUND when it does not exist. Runs on the blocking executor.
 */
final class DeleteGroupsApi implements KafkaApi<DeleteGroupsRequestData, DeleteGroupsResponseData> {

    private final GroupCoordinator groups;

    DeleteGroupsApi(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletionStage<DeleteGroupsResponseData> handle(RequestContext context, DeleteGroupsRequestData request) {
        DeletableGroupResultCollection results = new DeletableGroupResultCollection();
        for (String groupId : new LinkedHashSet<>(request.groupsNames())) {
            results.add(new DeletableGroupResult()
                    .setGroupId(groupId)
                    .setErrorCode(delete(groupId).code()));
        }
        return CompletableFuture.completedFuture(
                new DeleteGroupsResponseData().setThrottleTimeMs(0).setResults(results));
    }

    private Errors delete(String groupId) {
        try {
            return GroupErrorCodes.of(groups.deleteGroup(groupId));
        } catch (RuntimeException e) {
            return KafkaErrors.errorOf(e);
        }
    }

    @Override
    public Map<Errors, Integer> errorCounts(DeleteGroupsResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        response.results().forEach(r -> counts.merge(Errors.forCode(r.errorCode()), 1, Integer::sum));
        return counts;
    }
}
