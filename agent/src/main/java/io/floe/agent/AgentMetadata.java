package io.floe.agent;

import io.floe.core.metadata.AgentMembership;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.Leases;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.LogRetention;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.metadata.Transactions;
import java.util.Objects;

/**
 * The metadata roles an agent's data path uses, handed out by the composition root: every role but the
 * object lifecycle, which is maintenance's. {@code description} names the store in logs;
 * {@code embedded} is {@link MetadataStore#embedded()}.
 */
public record AgentMetadata(
        TopicMetadata topics,
        LogAppends appends,
        LogReads reads,
        LogRetention retention,
        ConsumerOffsets offsets,
        AgentMembership membership,
        Leases leases,
        Transactions transactions,
        String description,
        boolean embedded) {

    public AgentMetadata {
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(appends, "appends");
        Objects.requireNonNull(reads, "reads");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(offsets, "offsets");
        Objects.requireNonNull(membership, "membership");
        Objects.requireNonNull(leases, "leases");
        Objects.requireNonNull(transactions, "transactions");
        Objects.requireNonNull(description, "description");
    }

    /** Every role played by one store. */
    public static AgentMetadata of(MetadataStore store) {
        return new AgentMetadata(
                store, store, store, store, store, store, store, store, store.describe(), store.embedded());
    }
}
