package io.floe.kafka.codec;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicDataCollection;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** Populated messages of the transaction APIs, with the fields each version carries. */
final class TransactionSamples {

    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    private TransactionSamples() {}

    static ApiMessage request(ApiKeys key, short v) {
        return switch (key) {
            case ADD_PARTITIONS_TO_TXN -> addPartitionsRequest(v);
            case ADD_OFFSETS_TO_TXN ->
                new AddOffsetsToTxnRequestData()
                        .setTransactionalId("tx-1")
                        .setProducerId(7)
                        .setProducerEpoch((short) 2)
                        .setGroupId("group-1");
            case END_TXN ->
                new EndTxnRequestData()
                        .setTransactionalId("tx-1")
                        .setProducerId(7)
                        .setProducerEpoch((short) 2)
                        .setCommitted(true);
            case TXN_OFFSET_COMMIT -> txnOffsetCommitRequest(v);
            case WRITE_TXN_MARKERS ->
                new WriteTxnMarkersRequestData()
                        .setMarkers(List.of(new WritableTxnMarker()
                                .setProducerId(7)
                                .setProducerEpoch((short) 2)
                                .setTransactionResult(false)
                                .setCoordinatorEpoch(0)
                                .setTopics(List.of(new WritableTxnMarkerTopic()
                                        .setName("orders")
                                        .setPartitionIndexes(List.of(0, 1))))));
            case DESCRIBE_TRANSACTIONS ->
                new DescribeTransactionsRequestData().setTransactionalIds(List.of("tx-1", "tx-2"));
            case LIST_TRANSACTIONS -> listTransactionsRequest(v);
            default -> throw new IllegalArgumentException("no sample request for " + key);
        };
    }

    static ApiMessage response(ApiKeys key, short v) {
        return switch (key) {
            case ADD_PARTITIONS_TO_TXN -> addPartitionsResponse(v);
            case ADD_OFFSETS_TO_TXN ->
                new AddOffsetsToTxnResponseData().setThrottleTimeMs(0).setErrorCode((short) 0);
            case END_TXN -> endTxnResponse(v);
            case TXN_OFFSET_COMMIT -> txnOffsetCommitResponse(v);
            case WRITE_TXN_MARKERS ->
                new WriteTxnMarkersResponseData()
                        .setMarkers(List.of(new WritableTxnMarkerResult()
                                .setProducerId(7)
                                .setTopics(List.of(new WritableTxnMarkerTopicResult()
                                        .setName("orders")
                                        .setPartitions(List.of(new WritableTxnMarkerPartitionResult()
                                                .setPartitionIndex(0)
                                                .setErrorCode(Errors.INVALID_PRODUCER_EPOCH.code())))))));
            case DESCRIBE_TRANSACTIONS -> describeTransactionsResponse();
            case LIST_TRANSACTIONS ->
                new ListTransactionsResponseData()
                        .setThrottleTimeMs(0)
                        .setErrorCode((short) 0)
                        .setUnknownStateFilters(List.of("Sleeping"))
                        .setTransactionStates(List.of(new ListTransactionsResponseData.TransactionState()
                                .setTransactionalId("tx-1")
                                .setProducerId(7)
                                .setTransactionState("Ongoing")));
            default -> throw new IllegalArgumentException("no sample response for " + key);
        };
    }

    private static AddPartitionsToTxnRequestData addPartitionsRequest(short v) {
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnTopic().setName("orders").setPartitions(List.of(0, 1)));
        if (v < 4) {
            return new AddPartitionsToTxnRequestData()
                    .setV3AndBelowTransactionalId("tx-1")
                    .setV3AndBelowProducerId(7)
                    .setV3AndBelowProducerEpoch((short) 2)
                    .setV3AndBelowTopics(topics);
        }
        AddPartitionsToTxnTransactionCollection transactions = new AddPartitionsToTxnTransactionCollection();
        transactions.add(new AddPartitionsToTxnTransaction()
                .setTransactionalId("tx-1")
                .setProducerId(7)
                .setProducerEpoch((short) 2)
                .setVerifyOnly(true)
                .setTopics(topics));
        return new AddPartitionsToTxnRequestData().setTransactions(transactions);
    }

    private static AddPartitionsToTxnResponseData addPartitionsResponse(short v) {
        AddPartitionsToTxnPartitionResultCollection partitions = new AddPartitionsToTxnPartitionResultCollection();
        partitions.add(
                new AddPartitionsToTxnPartitionResult().setPartitionIndex(0).setPartitionErrorCode((short) 0));
        AddPartitionsToTxnTopicResultCollection topics = new AddPartitionsToTxnTopicResultCollection();
        topics.add(new AddPartitionsToTxnTopicResult().setName("orders").setResultsByPartition(partitions));
        AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData().setThrottleTimeMs(0);
        if (v < 4) {
            return response.setResultsByTopicV3AndBelow(topics);
        }
        AddPartitionsToTxnResultCollection results = new AddPartitionsToTxnResultCollection();
        results.add(new AddPartitionsToTxnResult().setTransactionalId("tx-1").setTopicResults(topics));
        return response.setErrorCode((short) 0).setResultsByTransaction(results);
    }

    private static EndTxnResponseData endTxnResponse(short v) {
        EndTxnResponseData response =
                new EndTxnResponseData().setThrottleTimeMs(0).setErrorCode((short) 0);
        return v >= 5 ? response.setProducerId(7).setProducerEpoch((short) 3) : response;
    }

    private static TxnOffsetCommitRequestData txnOffsetCommitRequest(short v) {
        TxnOffsetCommitRequestPartition partition = new TxnOffsetCommitRequestPartition()
                .setPartitionIndex(0)
                .setCommittedOffset(42)
                .setCommittedMetadata("m");
        if (v >= 2) {
            partition.setCommittedLeaderEpoch(3);
        }
        TxnOffsetCommitRequestTopic topic = new TxnOffsetCommitRequestTopic().setPartitions(List.of(partition));
        if (v >= 6) {
            topic.setTopicId(TOPIC_ID);
        } else {
            topic.setName("orders");
        }
        TxnOffsetCommitRequestData request = new TxnOffsetCommitRequestData()
                .setTransactionalId("tx-1")
                .setGroupId("group-1")
                .setProducerId(7)
                .setProducerEpoch((short) 2)
                .setTopics(List.of(topic));
        if (v >= 3) {
            request.setGenerationIdOrMemberEpoch(4).setMemberId("member-1").setGroupInstanceId("instance-1");
        }
        return request;
    }

    private static TxnOffsetCommitResponseData txnOffsetCommitResponse(short v) {
        TxnOffsetCommitResponseTopic topic = new TxnOffsetCommitResponseTopic()
                .setPartitions(List.of(new TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(0)
                        .setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())));
        if (v >= 6) {
            topic.setTopicId(TOPIC_ID);
        } else {
            topic.setName("orders");
        }
        return new TxnOffsetCommitResponseData().setThrottleTimeMs(0).setTopics(List.of(topic));
    }

    private static ListTransactionsRequestData listTransactionsRequest(short v) {
        ListTransactionsRequestData request = new ListTransactionsRequestData()
                .setStateFilters(List.of("Ongoing"))
                .setProducerIdFilters(List.of(7L));
        if (v >= 1) {
            request.setDurationFilter(60_000);
        }
        if (v >= 2) {
            request.setTransactionalIdPattern("tx-.*");
        }
        return request;
    }

    private static DescribeTransactionsResponseData describeTransactionsResponse() {
        TopicDataCollection topics = new TopicDataCollection();
        topics.add(new TopicData().setTopic("orders").setPartitions(List.of(0, 1)));
        return new DescribeTransactionsResponseData()
                .setThrottleTimeMs(0)
                .setTransactionStates(List.of(
                        new TransactionState()
                                .setErrorCode((short) 0)
                                .setTransactionalId("tx-1")
                                .setTransactionState("Ongoing")
                                .setTransactionTimeoutMs(60_000)
                                .setTransactionStartTimeMs(1_700_000_000_000L)
                                .setProducerId(7)
                                .setProducerEpoch((short) 2)
                                .setTopics(topics),
                        new TransactionState()
                                .setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code())
                                .setTransactionalId("tx-2")
                                .setTransactionState("")
                                .setTopics(new TopicDataCollection())));
    }
}
