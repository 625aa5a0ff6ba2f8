package io.floe.kafka.api;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * The agent's incremental fetch sessions (KIP-227), by session id, bounded: creating a session when
 * the cache is full evicts the least recently used one, whose client then gets
 * FETCH_SESSION_ID_NOT_FOUND and falls back to a full fetch. Thread-safe.
 */
final class FetchSessionCache {

    /** Kafka's default {@code max.incremental.fetch.session.cache.slots}. */
    static final int DEFAULT_MAX_SESSIONS = 1000;

    private final int maxSessions;
    private final IntSupplier ids;
    private final LinkedHashMap<Integer, FetchSession> sessions = new LinkedHashMap<>(16, 0.75f, true);

    /**
     * {@code ids} proposes session ids; non-positive and taken ones are skipped. It is called under
     * this cache's lock, so it need not be thread-safe.
     */
    FetchSessionCache(int maxSessions, IntSupplier ids) {
        if (maxSessions < 1) {
            throw new IllegalArgumentException("fetch session cache needs at least one slot, got " + maxSessions);
        }
        this.maxSessions = maxSessions;
        this.ids = ids;
    }

    /** A new session holding {@code partitions}, expecting epoch 1 next; may evict the least recently used. */
    synchronized FetchSession create(boolean usesTopicIds, List<FetchSession.Entry> partitions) {
        if (sessions.size() >= maxSessions) {
            Iterator<Map.Entry<Integer, FetchSession>> eldest =
                    sessions.entrySet().iterator();
            eldest.next();
            eldest.remove();
        }
        int id = ids.getAsInt();
        while (id <= 0 || sessions.containsKey(id)) {
            id = ids.getAsInt();
        }
        FetchSession session = new FetchSession(id, usesTopicIds, partitions);
        sessions.put(id, session);
        return session;
    }

    /** The session, marked as recently used. */
    synchronized Optional<FetchSession> get(int sessionId) {
        return Optional.ofNullable(sessions.get(sessionId));
    }

    synchronized void remove(int sessionId) {
        sessions.remove(sessionId);
    }

    synchronized int size() {
        return sessions.size();
    }
}
