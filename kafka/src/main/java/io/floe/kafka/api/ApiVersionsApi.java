package io.floe.kafka.api;

import io.floe.kafka.codec.AdvertisedVersions;
import io.floe.kafka.codec.VersionRange;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;

/**
 * ApiVersions (v0-5): the served APIs and their version ranges. Floe has no feature flags, so the
 * supported and finalized feature lists are empty. Versions Floe does not serve are answered by the
 * request dispatcher with a v0 response (KIP-511).
 */
final class ApiVersionsApi implements KafkaApi<ApiVersionsRequestData, ApiVersionsResponseData> {

    /** KIP-511's rule for client software names and versions. */
    private static final Pattern SOFTWARE = Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");

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
        return CompletableFuture.completedFuture(
                response.setErrorCode(Errors.NONE.code()).setApiKeys(AdvertisedVersions.of(served)));
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
