package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.kafka.api.admin.AdminApis;
import io.floe.kafka.api.group.GroupApis;
import io.floe.kafka.codec.VersionRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The APIs a server answers, by api key. ApiVersions is always registered and advertises exactly the
 * registered APIs with their version ranges.
 */
public final class ApiRegistry {

    private final Map<ApiKeys, RegisteredApi> apis;
    private final Map<ApiKeys, VersionRange> served;

    private ApiRegistry(Map<ApiKeys, RegisteredApi> apis) {
        this.apis = Collections.unmodifiableMap(apis);
        Map<ApiKeys, VersionRange> ranges = new EnumMap<>(ApiKeys.class);
        apis.forEach((key, api) -> ranges.put(key, api.versions()));
        this.served = Collections.unmodifiableMap(ranges);
    }

    /**
     * The Kafka APIs Floe serves over {@code agent}; {@code blocking} runs the work that waits on the
     * metadata store, and {@code listeners} names the bound listener for DescribeConfigs.
     */
    public static ApiRegistry standard(Agent agent, Executor blocking, Supplier<String> listeners) {
        List<KafkaApi<? extends ApiMessage, ? extends ApiMessage>> apis = new ArrayList<>(List.of(
                new MetadataApi(agent, blocking),
                new ProduceApi(agent),
                new FetchApi(agent, new FetchSessionCache(FetchSessionCache.DEFAULT_MAX_SESSIONS,
                        FetchSessionCache.randomIds())),
                new ListOffsetsApi(agent, blocking),
                new InitProducerIdApi(agent, blocking),
                new CreateTopicsApi(agent, blocking),
                new DeleteTopicsApi(agent, blocking),
                new CreatePartitionsApi(agent, blocking),
                new DescribeConfigsApi(agent, blocking, listeners),
                new DescribeClusterApi(agent),
                new OffsetForLeaderEpochApi(agent, blocking)));
        apis.addAll(GroupApis.all(agent, blocking));
        apis.addAll(AdminApis.all(agent, blocking));
        return of(apis);
    }

    /** A registry of {@code apis} plus ApiVersions; each api key at most once, versions within kafka-clients'. */
    public static ApiRegistry of(List<KafkaApi<? extends ApiMessage, ? extends ApiMessage>> apis) {
        List<KafkaApi<? extends ApiMessage, ? extends ApiMessage>> all = new ArrayList<>(apis);
        Map<ApiKeys, RegisteredApi> registered = new EnumMap<>(ApiKeys.class);
        for (KafkaApi<? extends ApiMessage, ? extends ApiMessage> api : all) {
            ApiKeys key = api.key();
            if (!key.isVersionSupported(api.minVersion()) || !key.isVersionSupported(api.maxVersion())) {
                throw new IllegalArgumentException(key.name + " versions " + api.minVersion() + "-"
                        + api.maxVersion() + " are outside kafka-clients' " + key.oldestVersion() + "-"
                        + key.latestVersion(true));
            }
            if (registered.put(key, new RegisteredApi(api)) != null) {
                throw new IllegalArgumentException(key.name + " registered twice");
            }
        }
        if (!registered.containsKey(ApiKeys.API_VERSIONS)) {
            Map<ApiKeys, VersionRange> ranges = new EnumMap<>(ApiKeys.class);
            registered.forEach((key, api) -> ranges.put(key, api.versions()));
            ranges.put(ApiKeys.API_VERSIONS, ApiVersionsApi.VERSIONS);
            registered.put(ApiKeys.API_VERSIONS, new RegisteredApi(new ApiVersionsApi(ranges)));
        }
        return new ApiRegistry(registered);
    }

    public Optional<RegisteredApi> get(ApiKeys key) {
        return Optional.ofNullable(apis.get(key));
    }

    /** The version range of every registered API, as advertised. */
    public Map<ApiKeys, VersionRange> servedVersions() {
        return served;
    }
}
