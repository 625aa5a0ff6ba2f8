package io.floe.cli.agent;

import java.util.Objects;

/**
 * A network address as written on the command line: {@code host:port}, with IPv6 hosts in brackets
 * ({@code [::1]:9092}).
 */
record HostPort(String host, int port) {

    public HostPort {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " is outside 0-65535");
        }
    }

    /** Parses {@code host:port}; the message of the exception says what is wrong. */
    public static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw new IllegalArgumentException("expected HOST:PORT, with an IPv6 host in brackets: [::1]:9092");
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected HOST:PORT with a numeric port");
        }
        return new HostPort(host, port);
    }

    /** True for the addresses that bind every interface, which clients cannot connect to. */
    public boolean isWildcard() {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
    }

    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
