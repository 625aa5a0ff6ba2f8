package io.floe.kafka.api.admin;

import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.ArrayList;
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
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.ApiError;

/**
 * AlterConfigs (v0-2), the older whole-set form that librdkafka and older tools still send: the
 * configs given become the topic's overrides and every override not given is removed (floe.*
 * settings included), as in Kafka. Validated like IncrementalAlterConfigs; {@code validate_only}
 * checks without storing. See {@link ConfigAlteration} for brokers and other resource types.
 */
final class AlterConfigsApi implements KafkaApi<AlterConfigsRequestData, AlterConfigsResponseData> {

    private final ConfigAlteration alteration;

    AlterConfigsApi(ConfigAlteration alteration) {
        this.alteration = alteration;
    }

    @Override
    public Map<Errors, Integer> errorCounts(AlterConfigsResponseData response) {
        return new AlterConfigsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<AlterConfigsResponseData> handle(RequestContext context, AlterConfigsRequestData request) {
        return CompletableFuture.completedFuture(respond(request));
    }

    private AlterConfigsResponseData respond(AlterConfigsRequestData request) {
        List<ConfigResource> resources = new ArrayList<>();
        request.resources().forEach(r -> resources.add(ConfigAlteration.resource(r.resourceType(), r.resourceName())));
        Set<ConfigResource> duplicated = ConfigAlteration.duplicated(resources);
        Set<ConfigResource> answered = new HashSet<>();
        AlterConfigsResponseData response = new AlterConfigsResponseData().setThrottleTimeMs(0);
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
                            topic -> replacement(resource.configs()),
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

    /** The overrides the request gives, which replace all of the topic's; the caller validates them. */
    private static Map<String, String> replacement(Iterable<AlterableConfig> configs) {
        Map<String, String> overrides = new HashMap<>();
        for (AlterableConfig config : configs) {
            if (config.value() == null) {
                throw new InvalidConfigurationException("Null value not supported for topic configs: " + config.name());
            }
            if (overrides.put(config.name(), config.value()) != null) {
                throw new InvalidRequestException("Error due to duplicate config keys: " + config.name());
            }
        }
        return overrides;
    }
}
