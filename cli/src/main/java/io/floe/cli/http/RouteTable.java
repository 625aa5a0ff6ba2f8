package io.floe.cli.http;

import com.sun.net.httpserver.HttpHandler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the HTTP endpoint serves: exact paths answered by a text supplier on GET (and HEAD), and
 * mounted prefixes handed whole to a handler that gets every method and every path under them.
 * Build it before {@link HttpEndpoint#start}; it is not changed afterwards.
 */
public final class RouteTable {

    private final Map<String, Supplier<TextResponse>> gets = new LinkedHashMap<>();
    private final Map<String, HttpHandler> mounts = new LinkedHashMap<>();

    /** Answers {@code GET path} (exactly that path) with {@code responder}'s response. */
    public RouteTable get(String path, Supplier<TextResponse> responder) {
        requirePath(path);
        Objects.requireNonNull(responder, "responder");
        if (gets.putIfAbsent(path, responder) != null) {
            throw new IllegalArgumentException("route GET " + path + " is already taken");
        }
        return this;
    }

    /** Hands every request to {@code prefix} or below it ({@code prefix/...}) to {@code handler}. */
    public RouteTable mount(String prefix, HttpHandler handler) {
        requirePath(prefix);
        Objects.requireNonNull(handler, "handler");
        if (prefix.endsWith("/")) {
            throw new IllegalArgumentException("mount prefix " + prefix + " must not end with '/'");
        }
        if (mounts.putIfAbsent(prefix, handler) != null) {
            throw new IllegalArgumentException("mount " + prefix + " is already taken");
        }
        return this;
    }

    Optional<Supplier<TextResponse>> exact(String path) {
        return Optional.ofNullable(gets.get(path));
    }

    /** The handler of the longest mounted prefix that contains {@code path}. */
    Optional<HttpHandler> mounted(String path) {
        String best = null;
        for (String prefix : mounts.keySet()) {
            boolean under = path.equals(prefix) || path.startsWith(prefix + "/");
            if (under && (best == null || prefix.length() > best.length())) {
                best = prefix;
            }
        }
        return Optional.ofNullable(best).map(mounts::get);
    }

    private static void requirePath(String path) {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("route path '" + path + "' must start with '/'");
        }
    }
}
