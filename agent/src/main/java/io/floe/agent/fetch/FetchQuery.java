package io.floe.agent.fetch;

import java.time.Duration;
import java.util.List;

/**
 * A fetch as the agent sees it: partitions in the client's order, and Kafka's long-poll limits.
 *
 * @param maxWait how long to wait for {@code minBytes} (capped by the agent's fetch max wait)
 * @param minBytes answer as soon as this many bytes are available
 * @param maxBytes bound on the whole answer (the first batch is returned even if it is larger)
 */
public record FetchQuery(List<PartitionQuery> partitions, Duration maxWait, int minBytes, int maxBytes) {

    public FetchQuery {
        partitions = List.copyOf(partitions);
    }
}
