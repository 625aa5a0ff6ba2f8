package io.floe.kafka.api;

import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection as the APIs see it: the client's address, and what an API keeps for as long
 * as the connection lives (released when it closes). Used only on the connection's event loop.
 */
public final class ClientConnection {

    private static final Logger LOGGER = LoggerFactory.getLogger(ClientConnection.class);

    private final SocketAddress peer;
    private final Map<Class<?>, AutoCloseable> resources = new HashMap<>(2);
    private boolean closed;

    public ClientConnection(SocketAddress peer) {
        this.peer = peer;
    }

    public SocketAddress peer() {
        return peer;
    }

    /** This connection's resource of the given type, opened on first use. */
    public <T extends AutoCloseable> T resource(Class<T> type, Supplier<T> open) {
        if (closed) {
            throw new IllegalStateException("connection from " + peer + " is closed");
        }
        return type.cast(resources.computeIfAbsent(type, t -> Objects.requireNonNull(open.get(), "resource")));
    }

    /** Releases every resource; called once, when the connection closes. */
    public void close() {
        closed = true;
        for (AutoCloseable resource : resources.values()) {
            try {
                resource.close();
            } catch (Exception e) {
                LOGGER.warn("Could not release a connection's resource peer={} resource={}", peer, resource, e);
            }
        }
        resources.clear();
    }
}
