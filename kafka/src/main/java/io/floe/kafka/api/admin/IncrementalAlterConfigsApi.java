package io.floe.kafka.api.admin;

import io.floe.core.config.TopicConfigs;
import io.floe.core.topic.Topic;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;

/**
 * IncrementalAlterConfigs (v0-1): SET and DELETE of topic overrides, APPEND and SUBTRACT on list
 * configs (starting from the effective value when the topic has no override), each resource as a
 * whole, validated against the topic config definitions; {@code validate_only} checks without
 * storing. See {@link ConfigAlteration} for brokers and other resource types.
 */
final class IncrementalAlterConfigsApi
        implements KafkaApi<IncrementalAlterConfigsRequestData, IncrementalAlterConfigsResponseData> {

    private static final byte SET = 0;
    private static final byte DELETE = 1;
    private static final byte APPEND = 2;
    private static final byte SUBTRACT = 3;

    private final TopicConfigs configs;
    private final ConfigAlteration alteration;

    IncrementalAlterConfigsApi(TopicConfigs configs, ConfigAlteration alteration) {
        this.configs = configs;
        this.alteration = alteration;
    }

    @Override
    public Map<Errors, Integer> errorCounts(IncrementalAlterConfigsResponseData response) {
        return new IncrementalAlterConfigsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<IncrementalAlterConfigsResponseData> handle(
            RequestContext context, IncrementalAlterConfigsRequestData request) {
        return CompletableFuture.completedFuture(respond(request));
    }

    private IncrementalAlterConfigsResponseData respond(IncrementalAlterConfigsRequestData request) {
        List<ConfigResource> resources = new ArrayList<>();
        request.resources().forEach(r -> resources.add(ConfigAlteration.resource(r.resourceType(), r.resourceName())));
        Set<ConfigResource> duplicated = ConfigAlteration.duplicated(resources);
        Set<ConfigResource> answered = new HashSet<>();
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData().setThrottleTimeMs(0);
        for (AlterConfigsResource resource : request.resources()) {
            ConfigResource key = ConfigAlteration.resource(resource.resourceType(), resource.resourceName());
            if (!answered.add(key)) {
                continue;
            }
            ApiError error = duplicated.contains(key)
                    ? new ApiError(Errors.INVALID_REQUEST, "Duplicate resource " + key)
                    : alteration.alter(
                            resource.resourceType(),
                            resource.resourceName(),
                            topic -> apply(resource.configs(), topic),
                            request.validateOnly());
            response.responses()
                    .add(new AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorCode(error.error().code())
                            .setErrorMessage(error.message()));
        }
        return response;
    }

    /** The topic's overrides after {@code operations}, in request order; the caller validates the result. */
    private Map<String, String> apply(Iterable<AlterableConfig> operations, Topic topic) {
        Map<String, String> overrides = new HashMap<>(topic.configs());
        Set<String> names = new HashSet<>();
        for (AlterableConfig operation : operations) {
            String name = operation.name();
            if (!names.add(name)) {
                throw new InvalidRequestException("Error due to duplicate config keys: " + name);
            }
            byte type = operation.configOperation();
            if (type != DELETE && operation.value() == null) {
                throw new InvalidRequestException("Null value not supported for : " + name);
            }
            switch (type) {
                case SET -> overrides.put(name, operation.value());
                case DELETE -> overrides.remove(name);
                case APPEND, SUBTRACT ->
                    overrides.put(name, changeList(topic, name, operation.value(), type == APPEND));
                default -> throw new InvalidRequestException("Unknown config operation " + type + " for " + name);
            }
        }
        return overrides;
    }

    /** The list config's effective value with {@code value}'s items appended (once) or removed. */
    private String changeList(Topic topic, String name, String value, boolean append) {
        if (!TopicConfigs.isList(name)) {
            throw new InvalidConfigurationException(
                    TopicConfigs.isKnown(name)
                            ? "Can't " + (append ? "APPEND" : "SUBTRACT") + " to key " + name
                                    + " because its type is not LIST."
                            : "Unknown topic config name: " + name);
        }
        List<String> items = new ArrayList<>(split(configs.value(topic, name)));
        for (String item : split(value)) {
            if (append && !items.contains(item)) {
                items.add(item);
            } else if (!append) {
                items.remove(item);
            }
        }
        return String.join(",", items);
    }

    private static List<String> split(String list) {
        return list == null || list.isBlank()
                ? List.of()
                : Arrays.stream(list.split(","))
                        .map(String::trim)
                        .filter(item -> !item.isEmpty())
                        .toList();
    }
}
