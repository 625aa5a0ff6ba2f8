package io.floe.kafka.api;

import io.floe.core.config.ConfigEntry;
import io.floe.core.config.ConfigSource;
import io.floe.core.config.ConfigType;
import java.util.List;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.requests.DescribeConfigsResponse;

/** Floe's config sources and types as Kafka's DescribeConfigs and CreateTopics ids. */
final class ConfigMapping {

    private ConfigMapping() {}

    static byte source(ConfigSource source) {
        return switch (source) {
            case TOPIC_OVERRIDE -> DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id();
            case STATIC_AGENT -> DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG.id();
            case DEFAULT -> DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id();
        };
    }

    static byte type(ConfigType type) {
        return switch (type) {
            case BOOLEAN -> DescribeConfigsResponse.ConfigType.BOOLEAN.id();
            case STRING -> DescribeConfigsResponse.ConfigType.STRING.id();
            case INT -> DescribeConfigsResponse.ConfigType.INT.id();
            case SHORT -> DescribeConfigsResponse.ConfigType.SHORT.id();
            case LONG -> DescribeConfigsResponse.ConfigType.LONG.id();
            case DOUBLE -> DescribeConfigsResponse.ConfigType.DOUBLE.id();
            case LIST -> DescribeConfigsResponse.ConfigType.LIST.id();
            case CLASS -> DescribeConfigsResponse.ConfigType.CLASS.id();
            case PASSWORD -> DescribeConfigsResponse.ConfigType.PASSWORD.id();
        };
    }

    /** The value a client may see: none for sensitive configs, as Kafka does. */
    static String visibleValue(ConfigEntry entry) {
        return entry.sensitive() ? null : entry.value();
    }

    /** A topic's configs as CreateTopics (v5+) returns them. */
    static List<CreatableTopicConfigs> creatableTopicConfigs(List<ConfigEntry> entries) {
        return entries.stream()
                .map(entry -> new CreatableTopicConfigs()
                        .setName(entry.name())
                        .setValue(visibleValue(entry))
                        .setReadOnly(entry.readOnly())
                        .setConfigSource(source(entry.source()))
                        .setIsSensitive(entry.sensitive()))
                .toList();
    }
}
