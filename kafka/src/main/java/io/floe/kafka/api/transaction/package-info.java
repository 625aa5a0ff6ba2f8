/**
 * The transaction APIs: AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, the Admin paths that
 * {@code kafka-transactions.sh} uses (DescribeTransactions, ListTransactions, WriteTxnMarkers), each a
 * translation between Kafka's messages and the agent's transaction coordinator. Any agent answers any
 * transactional id: the state is in the metadata store.
 */
package io.floe.kafka.api.transaction;
