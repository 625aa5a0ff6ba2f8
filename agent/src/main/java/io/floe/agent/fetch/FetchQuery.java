package io.floe.agent.fetch;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A fetch as the agent sees it: partitions in the client's order, and Kafka's long-poll limits.
 *
 * @param maxWait how long to wait for {@code minBytes} (capped by the agent's fetch max wait)
 * @param minBytes answer as soon as this many bytes are available
 * @param maxBytes bound on the whole answer (the first batch is returned even if it is larger)
 * @param fromFiles whether the answer may hold {@link io.floe.core.log.RecordChunk.InFile} chunks,
 *     ranges of local object files to send without reading them; the caller then owns their
 *     references (the network layer releases them once sent). Otherwise every chunk is in memory.
 * @param isolation which records the fetch sees; a read-committed fetch waits for entries below the
 *     last stable offset
 */
public record FetchQuery(
        List<PartitionQuery> partitions,
        Duration maxWait,
        int minBytes,
        int maxBytes,
        boolean fromFiles,
        FetchIsolation isolation) {

    public FetchQuery {
        partitions = List.copyOf(partitions);
        Objects.requireNonNull(isolation, "isolation");
    }

    /** A read-uncommitted fetch. */
    public FetchQuery(
            List<PartitionQuery> partitions, Duration maxWait, int minBytes, int maxBytes, boolean fromFiles) {
        this(partitions, maxWait, minBytes, maxBytes, fromFiles, FetchIsolation.READ_UNCOMMITTED);
    }

    public boolean readCommitted() {
        return isolation == FetchIsolation.READ_COMMITTED;
    }

    /** A fetch answered in memory only. */
    public FetchQuery(List<PartitionQuery> partitions, Duration maxWait, int minBytes, int maxBytes) {
        this(partitions, maxWait, minBytes, maxBytes, false);
    }
}
