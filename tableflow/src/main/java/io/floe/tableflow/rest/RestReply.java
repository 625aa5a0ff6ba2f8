package io.floe.tableflow.rest;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One complete answer: a status, headers and a JSON body (empty for none, as for 204 and 304).
 *
 * @param status the HTTP status code
 * @param headers response headers besides {@code Content-Type}, which a non-empty body sets to JSON
 * @param body the JSON body, UTF-8
 */
public record RestReply(int status, Map<String, String> headers, byte[] body) {

    public static final String JSON = "application/json";

    public RestReply {
        headers = Map.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }

    static RestReply json(int status, byte[] body) {
        return new RestReply(status, Map.of(), body);
    }

    static RestReply empty(int status) {
        return new RestReply(status, Map.of(), new byte[0]);
    }

    RestReply withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new RestReply(status, more, body);
    }

    public boolean hasBody() {
        return body.length > 0;
    }

    /** The body as text, for logs and tests. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
