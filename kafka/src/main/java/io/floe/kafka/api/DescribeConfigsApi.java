package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.agent.topic.Topics;
import io.floe.core.config.ConfigEntry;
import io.floe.core.config.ConfigSource;
import io.floe.core.config.TopicConfigs;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse;

/**
 * DescribeConfigs (v1-4) for topics (effective values with their sources) and for this agent as a
 * broker (see {@link BrokerConfigs}); broker loggers have no configs in Floe and answer empty; other
 * resource types are refused with INVALID_REQUEST.
 */
final class DescribeConfigsApi implements KafkaApi<DescribeConfigsRequestData, DescribeConfigsResponseData> {

    private final Agent agent;
    private final Supplier<String> listeners;

    DescribeConfigsApi(Agent agent, Supplier<String> listeners) {
        this.agent = agent;
        this.listeners = listeners;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DescribeConfigsResponseData response) {
        return new DescribeConfigsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<DescribeConfigsResponseData> handle(
            RequestContext context, DescribeConfigsRequestData request) {
        DescribeConfigsResponseData response = new DescribeConfigsResponseData().setThrottleTimeMs(0);
        for (DescribeConfigsResource resource : request.resources()) {
            response.results().add(describe(resource, request.includeSynonyms(), request.includeDocumentation()));
        }
        return CompletableFuture.completedFuture(response);
    }

    private DescribeConfigsResult describe(DescribeConfigsResource resource, boolean synonyms, boolean documentation) {
        DescribeConfigsResult result = new DescribeConfigsResult()
                .setResourceType(resource.resourceType())
                .setResourceName(resource.resourceName());
        try {
            Set<String> keys =
                    resource.configurationKeys() == null ? null : new HashSet<>(resource.configurationKeys());
            List<DescribeConfigsResourceResult> configs = new ArrayList<>();
            for (ConfigEntry entry : entries(resource)) {
                if (keys == null || keys.contains(entry.name())) {
                    configs.add(toResult(entry, synonyms, documentation));
                }
            }
            return result.setErrorCode(Errors.NONE.code()).setConfigs(configs);
        } catch (RuntimeException e) {
            ApiException error = KafkaErrors.toApiException(e);
            return result.setErrorCode(Errors.forException(error).code()).setErrorMessage(error.getMessage());
        }
    }

    private List<ConfigEntry> entries(DescribeConfigsResource resource) {
        ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
        String name = resource.resourceName();
        switch (type) {
            case TOPIC -> {
                Topics.validateName(name).ifPresent(problem -> {
                    throw new InvalidTopicException(problem);
                });
                Topic topic = agent.topics().find(name).orElseThrow(() -> new UnknownTopicException(name));
                return agent.topics().configs().describe(topic);
            }
            case BROKER -> {
                requireThisBroker(name);
                return BrokerConfigs.describe(agent.config(), listeners.get());
            }
            case BROKER_LOGGER -> {
                requireThisBroker(name);
                return List.of();
            }
            default -> throw new InvalidRequestException("Unsupported resource type " + type + " for " + name);
        }
    }

    private void requireThisBroker(String name) {
        String self = Integer.toString(agent.config().nodeId());
        if (!name.isEmpty() && !name.equals(self)) {
            throw new InvalidRequestException(
                    "Unexpected broker id, expected " + self + " or empty string, but received " + name);
        }
    }

    private static DescribeConfigsResourceResult toResult(ConfigEntry entry, boolean synonyms, boolean documentation) {
        return new DescribeConfigsResourceResult()
                .setName(entry.name())
                .setValue(ConfigMapping.visibleValue(entry))
                .setReadOnly(entry.readOnly())
                .setConfigSource(ConfigMapping.source(entry.source()))
                .setIsSensitive(entry.sensitive())
                .setSynonyms(synonyms ? synonyms(entry) : List.of())
                .setConfigType(ConfigMapping.type(entry.type()))
                .setDocumentation(documentation ? entry.documentation() : null);
    }

    /** The entry itself and, below it, the built-in default it overrides, in Kafka's precedence order. */
    private static List<DescribeConfigsSynonym> synonyms(ConfigEntry entry) {
        List<DescribeConfigsSynonym> synonyms = new ArrayList<>(2);
        synonyms.add(new DescribeConfigsSynonym()
                .setName(entry.name())
                .setValue(ConfigMapping.visibleValue(entry))
                .setSource(ConfigMapping.source(entry.source())));
        String builtIn = TopicConfigs.builtInDefault(entry.name());
        if (entry.source() != ConfigSource.DEFAULT && builtIn != null && !entry.sensitive()) {
            synonyms.add(new DescribeConfigsSynonym()
                    .setName(entry.name())
                    .setValue(builtIn)
                    .setSource(ConfigMapping.source(ConfigSource.DEFAULT)));
        }
        return synonyms;
    }
}
