package io.floe.kafka.codec;

import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/** Encodes a request as a client would send it: header and body, without the 4-byte size prefix. */
public final class RequestEncoder {

    private RequestEncoder() {}

    public static ByteBuffer encode(RequestHeader header, ApiMessage body) {
        return RequestUtils.serialize(header.data(), header.headerVersion(), body, header.apiVersion());
    }
}
