package io.floe.maintenance;

import io.floe.core.metadata.AgentMembership;
import io.floe.core.metadata.Leases;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.LogRetention;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.metadata.Transactions;
import java.util.Objects;

/**
 * The metadata roles the background jobs use, handed out by the composition root: topics and the log
 * to read, registrations for their outputs, log starts to move, the objects' lifecycle, the jobs'
 * leases, transactional ids to expire, and the membership rows of agents that went away.
 */
public record MaintenanceMetadata(
        TopicMetadata topics,
        LogReads reads,
        LogAppends appends,
        LogRetention retention,
        ObjectLifecycle objects,
        Leases leases,
        Transactions transactions,
        AgentMembership membership) {

    public MaintenanceMetadata {
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(reads, "reads");
        Objects.requireNonNull(appends, "appends");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(objects, "objects");
        Objects.requireNonNull(leases, "leases");
        Objects.requireNonNull(transactions, "transactions");
        Objects.requireNonNull(membership, "membership");
    }

    /** Every role played by one store. */
    public static MaintenanceMetadata of(MetadataStore store) {
        return new MaintenanceMetadata(store, store, store, store, store, store, store, store);
    }
}
