package io.floe.agent.fetch;

import java.util.List;

/** The answer to a {@link FetchQuery}: one result per queried partition, in the query's order. */
public record FetchResult(List<PartitionResult> partitions) {

    public FetchResult {
        partitions = List.copyOf(partitions);
    }

    /** Releases the object files the answers hold (for a result that is dropped, not sent). */
    public void release() {
        partitions.forEach(PartitionResult::release);
    }
}
