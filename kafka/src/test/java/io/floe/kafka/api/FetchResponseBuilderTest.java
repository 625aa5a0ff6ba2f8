package io.floe.kafka.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.fetch.FetchError;
import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The last stable offset and aborted transactions in Fetch answers, per isolation level. */
class FetchResponseBuilderTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private static List<FetchApi.Slot> slots() {
        return List.of(slot(P0), slot(P1));
    }

    private static FetchApi.Slot slot(TopicPartition tp) {
        return new FetchApi.Slot(
                new FetchSession.Entry(new FetchSession.Key(Uuid.ZERO_UUID, tp.topic(), tp.partition()), 0, 1 << 20),
                tp,
                null);
    }

    private static FetchResult result() {
        return new FetchResult(List.of(
                new PartitionResult.Data(
                        P0, new LogOffsets(0, 3, 7), List.of(), List.of(new AbortedTransaction(9, 0, 2))),
                new PartitionResult.Error(
                        P1, FetchError.OFFSET_OUT_OF_RANGE, new LogOffsets(2, 4, 5), "fetch offset 0 is below")));
    }

    private static List<PartitionData> partitions(FetchResponseData response) {
        return response.responses().get(0).partitions();
    }

    @Test
    void readCommittedAnswersCarryTheLastStableOffsetAndTheAbortedTransactions() {
        List<PartitionData> partitions =
                partitions(new FetchResponseBuilder(false, true).build(null, false, slots(), result()));

        PartitionData data = partitions.get(0);
        assertThat(data.highWatermark()).isEqualTo(7);
        assertThat(data.lastStableOffset()).isEqualTo(3);
        assertThat(data.abortedTransactions())
                .containsExactly(new FetchResponseData.AbortedTransaction()
                        .setProducerId(9)
                        .setFirstOffset(0));
        PartitionData outOfRange = partitions.get(1);
        assertThat(outOfRange.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(outOfRange.lastStableOffset()).isEqualTo(4);
        assertThat(outOfRange.abortedTransactions()).isEmpty();
    }

    @Test
    void readUncommittedAnswersCarryTheLastStableOffsetButNoAbortedTransactions() {
        List<PartitionData> partitions =
                partitions(new FetchResponseBuilder(false, false).build(null, false, slots(), result()));

        assertThat(partitions.get(0).lastStableOffset()).isEqualTo(3);
        assertThat(partitions.get(0).abortedTransactions()).isNull();
        assertThat(partitions.get(1).abortedTransactions()).isNull();
    }

    @Test
    void anIncrementalSessionIsToldWhenOnlyTheLastStableOffsetMoved() {
        FetchSession session = new FetchSessionCache(10, () -> 1)
                .create(false, List.of(slots().get(0).entry()));
        FetchApi.Slot slot = slots().get(0);
        FetchResponseBuilder builder = new FetchResponseBuilder(false, true);
        builder.build(session, false, List.of(slot), onlyP0(new LogOffsets(0, 3, 7)));

        assertThat(builder.build(session, true, List.of(slot), onlyP0(new LogOffsets(0, 3, 7)))
                        .responses())
                .isEmpty();
        assertThat(partitions(builder.build(session, true, List.of(slot), onlyP0(new LogOffsets(0, 5, 7)))))
                .extracting(PartitionData::lastStableOffset)
                .containsExactly(5L);
    }

    private static FetchResult onlyP0(LogOffsets offsets) {
        return new FetchResult(List.of(new PartitionResult.Data(P0, offsets, List.of())));
    }
}
