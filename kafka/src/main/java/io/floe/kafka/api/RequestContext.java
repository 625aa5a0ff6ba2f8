package io.floe.kafka.api;

import java.net.SocketAddress;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What a handler knows about a request besides its body.
 *
 * @param header the parsed request header (api key, version, correlation id, client id)
 * @param connection the connection it came on
 */
public record RequestContext(RequestHeader header, ClientConnection connection) {

    /** The client's address. */
    public SocketAddress peer() {
        return connection.peer();
    }

    public ApiKeys apiKey() {
        return header.apiKey();
    }

    public short apiVersion() {
        return header.apiVersion();
    }

    public String clientId() {
        return header.clientId();
    }

    public int correlationId() {
        return header.correlationId();
    }
}
