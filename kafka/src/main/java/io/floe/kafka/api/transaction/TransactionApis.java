package io.floe.kafka.api.transaction;

import io.floe.agent.Agent;
import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.kafka.api.ApiRegistry;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The transaction APIs, for the API registry; all blocking, since each waits on the metadata store.
 * InitProducerId (shared with idempotent producers) and TxnOffsetCommit (routed to the group's
 * coordinator) are registered with the produce and group APIs.
 */
public final class TransactionApis {

    private TransactionApis() {}

    /** Declares every transaction API over {@code agent}'s transaction coordinator. */
    public static void register(ApiRegistry.Builder apis, Agent agent) {
        TransactionCoordinator coordinator = agent.transactions();
        apis.blocking(ApiKeys.ADD_PARTITIONS_TO_TXN, 0, 5, new AddPartitionsToTxnApi(coordinator))
                .blocking(ApiKeys.ADD_OFFSETS_TO_TXN, 0, 4, new AddOffsetsToTxnApi(coordinator))
                .blocking(ApiKeys.END_TXN, 0, 5, new EndTxnApi(coordinator))
                .blocking(ApiKeys.WRITE_TXN_MARKERS, 1, 1, new WriteTxnMarkersApi(coordinator))
                .blocking(ApiKeys.DESCRIBE_TRANSACTIONS, 0, 0, new DescribeTransactionsApi(coordinator))
                .blocking(
                        ApiKeys.LIST_TRANSACTIONS,
                        0,
                        2,
                        new ListTransactionsApi(
                                coordinator, agent.cluster()::isTransactionCoordinatorOf, agent.clock()));
    }
}
