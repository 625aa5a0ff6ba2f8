package io.floe.kafka.codec;

import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** The API version list Floe advertises in ApiVersions responses, built from the served ranges. */
public final class AdvertisedVersions {

    private AdvertisedVersions() {}

    /** One entry per served API, by api key. */
    public static ApiVersionCollection of(Map<ApiKeys, VersionRange> served) {
        Map<Short, VersionRange> byId = new TreeMap<>();
        served.forEach((key, range) -> byId.put(key.id, range));
        ApiVersionCollection versions = new ApiVersionCollection(byId.size());
        byId.forEach((id, range) -> versions.add(
                new ApiVersion().setApiKey(id).setMinVersion(range.min()).setMaxVersion(range.max())));
        return versions;
    }

    /**
     * The answer to an ApiVersions request of a version Floe does not serve: error UNSUPPORTED_VERSION
     * with the served ranges, to be encoded at version 0, which every client can read (KIP-511).
     */
    public static ApiVersionsResponseData unsupportedVersionResponse(Map<ApiKeys, VersionRange> served) {
        return new ApiVersionsResponseData()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                .setApiKeys(of(served));
    }
}
