package io.floe.cli;

import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Option;

/**
 * How the {@code topics}, {@code groups} and {@code tables} commands reach an agent: the options
 * they all take, declared once, as a picocli {@code @Mixin}.
 */
public final class AdminConnection {

    @Option(
            names = "--bootstrap",
            paramLabel = "HOST:PORT",
            defaultValue = "127.0.0.1:9092",
            description = "Agent to connect to. Default: ${DEFAULT-VALUE}.")
    private String bootstrap;

    @Option(
            names = "--timeout-ms",
            paramLabel = "N",
            defaultValue = "30000",
            description = "How long to wait for answers. Default: ${DEFAULT-VALUE}.")
    private int timeoutMs;

    /** The agents to connect to, as given. */
    public String bootstrap() {
        return bootstrap;
    }

    /** How long to wait for answers; the caller refuses a value below 1. */
    public int timeoutMs() {
        return timeoutMs;
    }

    /** The configuration of an admin client for these options. */
    public Map<String, Object> adminConfig() {
        return Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG, "floe-cli",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
    }
}
