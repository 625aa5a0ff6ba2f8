package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.kafka.api.RegisteredApi.Execution;
import io.floe.kafka.api.admin.AdminApis;
import io.floe.kafka.api.group.GroupApis;
import io.floe.kafka.api.transaction.TransactionApis;
import io.floe.kafka.codec.VersionRange;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs a server answers, by api key: the one place each API's key, served versions and
 * execution (event loop or blocking executor) are declared. ApiVersions is always registered and
 * advertises exactly these ranges; the request dispatcher refuses every other version.
 */
public final class ApiRegistry {

    /** The ApiVersions versions Floe serves; other versions get KIP-511's v0 answer. */
    public static final VersionRange API_VERSIONS = new VersionRange((short) 0, (short) 5);

    private final Map<ApiKeys, RegisteredApi> apis;
    private final Map<ApiKeys, VersionRange> served;

    private ApiRegistry(Map<ApiKeys, RegisteredApi> apis, Map<ApiKeys, VersionRange> served) {
        this.apis = Collections.unmodifiableMap(apis);
        this.served = Collections.unmodifiableMap(served);
    }

    /**
     * The Kafka APIs Floe serves over {@code agent}; {@code listeners} names the bound listener for
     * DescribeConfigs, and {@code fetchSessionIds} draws incremental fetch session ids (called under
     * the session cache's lock, so it need not be thread-safe).
     */
    public static ApiRegistry standard(Agent agent, Supplier<String> listeners, RandomGenerator fetchSessionIds) {
        Builder apis = builder()
                .blocking(ApiKeys.METADATA, 0, 13, new MetadataApi(agent))
                .eventLoop(ApiKeys.PRODUCE, 3, 13, new ProduceApi(agent))
                .eventLoop(
                        ApiKeys.FETCH,
                        4,
                        18,
                        new FetchApi(
                                agent,
                                new FetchSessionCache(
                                        FetchSessionCache.DEFAULT_MAX_SESSIONS, fetchSessionIds::nextInt)))
                .blocking(ApiKeys.LIST_OFFSETS, 1, 11, new ListOffsetsApi(agent))
                .blocking(ApiKeys.INIT_PRODUCER_ID, 0, 5, new InitProducerIdApi(agent))
                .blocking(ApiKeys.CREATE_TOPICS, 2, 7, new CreateTopicsApi(agent))
                .blocking(ApiKeys.DELETE_TOPICS, 1, 6, new DeleteTopicsApi(agent))
                .blocking(ApiKeys.CREATE_PARTITIONS, 0, 3, new CreatePartitionsApi(agent))
                .blocking(ApiKeys.DESCRIBE_CONFIGS, 1, 4, new DescribeConfigsApi(agent, listeners))
                .eventLoop(ApiKeys.DESCRIBE_CLUSTER, 0, 2, new DescribeClusterApi(agent))
                .blocking(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 4, new OffsetForLeaderEpochApi(agent));
        GroupApis.register(apis, agent);
        AdminApis.register(apis, agent);
        TransactionApis.register(apis, agent);
        return apis.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Optional<RegisteredApi> get(ApiKeys key) {
        return Optional.ofNullable(apis.get(key));
    }

    /** The version range of every registered API, as advertised. */
    public Map<ApiKeys, VersionRange> servedVersions() {
        return served;
    }

    /** Declares APIs: each api key at most once, its versions within kafka-clients'. */
    public static final class Builder {

        private final Map<ApiKeys, RegisteredApi> apis = new EnumMap<>(ApiKeys.class);

        private Builder() {}

        /** {@code api} serves {@code key} at versions {@code min}-{@code max} on the connection's event loop. */
        public Builder eventLoop(ApiKeys key, int min, int max, KafkaApi<?, ?> api) {
            return register(key, min, max, Execution.EVENT_LOOP, api);
        }

        /** {@code api} serves {@code key} at versions {@code min}-{@code max} on the blocking executor. */
        public Builder blocking(ApiKeys key, int min, int max, KafkaApi<?, ?> api) {
            return register(key, min, max, Execution.BLOCKING, api);
        }

        private Builder register(ApiKeys key, int min, int max, Execution execution, KafkaApi<?, ?> api) {
            if (!key.isVersionSupported((short) min) || !key.isVersionSupported((short) max)) {
                throw new IllegalArgumentException(key.name + " versions " + min + "-" + max
                        + " are outside kafka-clients' " + key.oldestVersion() + "-" + key.latestVersion(true));
            }
            VersionRange versions = new VersionRange((short) min, (short) max);
            if (apis.put(key, new RegisteredApi(key, versions, execution, api)) != null) {
                throw new IllegalArgumentException(key.name + " registered twice");
            }
            return this;
        }

        /** The registry of the declared APIs plus ApiVersions, which advertises their ranges. */
        public ApiRegistry build() {
            Map<ApiKeys, RegisteredApi> registered = new EnumMap<>(apis);
            Map<ApiKeys, VersionRange> served = new EnumMap<>(ApiKeys.class);
            registered.forEach((key, api) -> served.put(key, api.versions()));
            if (!registered.containsKey(ApiKeys.API_VERSIONS)) {
                served.put(ApiKeys.API_VERSIONS, API_VERSIONS);
                registered.put(
                        ApiKeys.API_VERSIONS,
                        new RegisteredApi(
                                ApiKeys.API_VERSIONS, API_VERSIONS, Execution.EVENT_LOOP, new ApiVersionsApi(served)));
            }
            return new ApiRegistry(registered, served);
        }
    }
}
