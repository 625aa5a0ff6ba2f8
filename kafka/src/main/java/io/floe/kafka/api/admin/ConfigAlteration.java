package io.floe.kafka.api.admin;

import io.floe.agent.Agent;
import io.floe.agent.topic.Topics;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.requests.ApiError;

/**
 * What AlterConfigs and IncrementalAlterConfigs share: a topic's overrides are changed through the
 * agent's topics (validated, stored, visible at once); this agent as a broker has no dynamic config
 * store, so changes to it are refused unless they are only validated; other resource types are
 * refused.
 */
final class ConfigAlteration {

    static final String BROKER_CONFIGS_REFUSED = "dynamic broker configs are not supported; set them at agent start";
    static final String LOGGER_LEVELS_REFUSED =
            "changing log levels at run time is not supported; configure " + "logging at agent start";

    private final Agent agent;

    ConfigAlteration(Agent agent) {
        this.agent = agent;
    }

    /**
     * Applies {@code change} (the topic's new overrides, computed from the topic as stored now) to the
     * resource, or only checks it with {@code validateOnly}; the error to answer, NONE on success.
     */
    ApiError alter(byte resourceType, String name, Function<Topic, Map<String, String>> change, boolean validateOnly) {
        ConfigResource.Type type = ConfigResource.Type.forId(resourceType);
        try {
            switch (type) {
                case TOPIC -> {
                    Topics.validateName(name).ifPresent(problem -> {
                        throw new InvalidTopicException(problem);
                    });
                    agent.topics().alterConfigs(name, change, validateOnly);
                }
                case BROKER -> requireThisBrokerUnlessValidating(name, validateOnly, BROKER_CONFIGS_REFUSED);
                case BROKER_LOGGER -> requireThisBrokerUnlessValidating(name, validateOnly, LOGGER_LEVELS_REFUSED);
                default -> throw new InvalidRequestException("Unsupported resource type " + type + " for " + name);
            }
            return ApiError.NONE;
        } catch (RuntimeException e) {
            return ApiError.fromThrowable(KafkaErrors.toApiException(e));
        }
    }

    /** The resources named more than once in a request; each gets INVALID_REQUEST, as from Kafka. */
    static Set<ConfigResource> duplicated(List<ConfigResource> resources) {
        Set<ConfigResource> seen = new HashSet<>();
        Set<ConfigResource> duplicated = new HashSet<>();
        for (ConfigResource resource : resources) {
            if (!seen.add(resource)) {
                duplicated.add(resource);
            }
        }
        return duplicated;
    }

    static ConfigResource resource(byte type, String name) {
        return new ConfigResource(ConfigResource.Type.forId(type), name);
    }

    private void requireThisBrokerUnlessValidating(String name, boolean validateOnly, String refusal) {
        String self = Integer.toString(agent.config().nodeId());
        if (!name.isEmpty() && !name.equals(self)) {
            throw new InvalidRequestException(
                    "Unexpected broker id, expected " + self + " or empty string, but received " + name);
        }
        if (!validateOnly) {
            throw new InvalidRequestException(refusal);
        }
    }
}
