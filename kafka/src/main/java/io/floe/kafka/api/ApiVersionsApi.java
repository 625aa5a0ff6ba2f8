package io.floe.kafka.api;

import io.floe.kafka.codec.AdvertisedVersions;
import io.floe.kafka.codec.VersionRange;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;

/**
 * ApiVersions (v0-5): the served APIs and their version ranges, and from v3 one feature:
 * {@code transaction.version}, supported 0-2 and finalized at 2, which makes Kafka 4.x producers use
 * transaction version 2 (KIP-890: partitions join a transaction by Produce, every end bumps the
 * epoch); their TransactionManager reads the finalized level once the finalized features epoch is at
 * least 0. Supported features with a minimum of 0 are left out before v4, as Kafka does: older clients
 * refuse them. Versions Floe does not serve are answered by the request dispatcher with a v0 response
 * (KIP-511).
 */
final class ApiVersionsApi implements KafkaApi<ApiVersionsRequestData, ApiVersionsResponseData> {

    /** KIP-511's rule for client software names and versions. */
    private static final Pattern SOFTWARE = Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");

    static final String TRANSACTION_VERSION = "transaction.version";
    static final short TRANSACTION_VERSION_LEVEL = 2;
    /** Floe's features never change while a cluster runs, so their epoch stays 0. */
    private static final long FINALIZED_FEATURES_EPOCH = 0;

    private static final short FIRST_VERSION_WITH_FEATURES = 3;
    private static final short FIRST_VERSION_WITH_ZERO_MIN_FEATURES = 4;

    private final Map<ApiKeys, VersionRange> served;

    ApiVersionsApi(Map<ApiKeys, VersionRange> served) {
        this.served = Map.copyOf(served);
    }

    @Override
    public CompletionStage<ApiVersionsResponseData> handle(RequestContext context, ApiVersionsRequestData request) {
        ApiVersionsResponseData response = new ApiVersionsResponseData().setThrottleTimeMs(0);
        if (context.apiVersion() >= 3 && !validSoftware(request)) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code()));
        }
        response.setErrorCode(Errors.NONE.code()).setApiKeys(AdvertisedVersions.of(served));
        if (context.apiVersion() >= FIRST_VERSION_WITH_FEATURES) {
            addFeatures(response, context.apiVersion());
        }
        return CompletableFuture.completedFuture(response);
    }

    private static void addFeatures(ApiVersionsResponseData response, short version) {
        if (version >= FIRST_VERSION_WITH_ZERO_MIN_FEATURES) {
            response.supportedFeatures()
                    .add(new SupportedFeatureKey()
                            .setName(TRANSACTION_VERSION)
                            .setMinVersion((short) 0)
                            .setMaxVersion(TRANSACTION_VERSION_LEVEL));
        }
        response.setFinalizedFeaturesEpoch(FINALIZED_FEATURES_EPOCH);
        response.finalizedFeatures()
                .add(new FinalizedFeatureKey()
                        .setName(TRANSACTION_VERSION)
                        .setMinVersionLevel(TRANSACTION_VERSION_LEVEL)
                        .setMaxVersionLevel(TRANSACTION_VERSION_LEVEL));
    }

    @Override
    public Map<Errors, Integer> errorCounts(ApiVersionsResponseData response) {
        return new ApiVersionsResponse(response).errorCounts();
    }

    private static boolean validSoftware(ApiVersionsRequestData request) {
        return SOFTWARE.matcher(request.clientSoftwareName()).matches()
                && SOFTWARE.matcher(request.clientSoftwareVersion()).matches();
    }
}
