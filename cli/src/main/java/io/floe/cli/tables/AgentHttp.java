package io.floe.cli.tables;

import io.floe.cli.AdminConnection;

/** Where the tables commands find an agent's HTTP endpoint (its {@code --http-listen}). */
final class AgentHttp {

    /** The agent's default HTTP port. */
    static final int DEFAULT_PORT = 9644;

    private AgentHttp() {}

    /** {@code http} when given, else the host of the first {@code --bootstrap} agent with the default HTTP port. */
    static String endpoint(String http, AdminConnection connection) {
        if (http != null) {
            return http;
        }
        String bootstrap = connection.bootstrap().split(",")[0].trim();
        int colon = bootstrap.lastIndexOf(':');
        String host = colon < 0 ? bootstrap : bootstrap.substring(0, colon);
        return host + ":" + DEFAULT_PORT;
    }
}
