package io.floe.tableflow;

import io.floe.core.metadata.Leases;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.LogRetention;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TopicMetadata;
import java.util.Objects;

/**
 * The metadata roles Tableflow uses, handed out by the composition root: the topics to materialize,
 * their logs to read, the retention holds at the tables' watermarks, and the table jobs' leases.
 */
public record TableflowMetadata(TopicMetadata topics, LogReads reads, LogRetention retention, Leases leases) {

    public TableflowMetadata {
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(reads, "reads");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(leases, "leases");
    }

    /** Every role played by one store. */
    public static TableflowMetadata of(MetadataStore store) {
        return new TableflowMetadata(store, store, store, store);
    }
}
