package io.floe.cli.http;

import java.util.Objects;

/**
 * A complete, small HTTP response with a text body.
 *
 * @param status the HTTP status code
 * @param contentType the Content-Type header
 * @param body the body, sent as UTF-8
 */
public record TextResponse(int status, String contentType, String body) {

    public static final String PLAIN = "text/plain; charset=utf-8";

    public TextResponse {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
    }

    /** 200 with a plain-text body. */
    public static TextResponse ok(String body) {
        return new TextResponse(200, PLAIN, body);
    }
}
