package io.floe.core.metadata;

/**
 * The single source of truth for topics, partitions, offsets, the batch index, producer state,
 * consumer groups' committed offsets, transactions and the agents' membership: every metadata role in one store.
 * Only the composition root, implementations, their decorators and tests see it whole; everything
 * else takes the roles it uses. The contract is the {@linkplain io.floe.core.metadata package's}.
 */
public interface MetadataStore
        extends TopicMetadata,
                LogAppends,
                LogReads,
                LogRetention,
                ConsumerOffsets,
                AgentMembership,
                Leases,
                ObjectLifecycle,
                Transactions,
                AutoCloseable {

    /** A short description for logs: the kind of store and where it is. */
    String describe();

    /**
     * True for a store embedded in this process (SQLite): only this process writes it, and its reads
     * are local and short. The agent may then answer from its own memory what it would otherwise ask
     * the store, and run short reads where it would not block on a network round trip.
     */
    default boolean embedded() {
        return false;
    }

    @Override
    void close();
}
