package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.OperationKind;
import io.floe.core.topic.NewTopic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OffsetFetch with require_stable against an EndTxn that lands while it reads (issue 27, defect 3): the
 * store's answer between the agent's reads is where a Kafka Streams task taking over would read an old
 * offset as stable and process its input again.
 */
class StableOffsetFetchTest {

    private static final String TRANSACTIONAL_ID = "tx-1";
    private static final String GROUP = "group-1";

    @TempDir
    Path dir;

    /** Run once, right after the next read of the group's offsets returns. */
    private final AtomicReference<Runnable> afterOffsetsRead = new AtomicReference<>();

    private AgentFixture fixture;
    private WireClient client;
    private int correlation;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServerOnStore(dir, EndingBetweenReads::new);
        client = new WireClient(fixture.server().port());
        fixture.agent().topics().create(new NewTopic("orders", 1, Map.of()), false);
    }

    @AfterEach
    void stop() {
        client.close();
        fixture.close();
    }

    @Test
    void anEndTxnBetweenTheReadsNeverShowsTheOldOffsetAsStable() {
        InitProducerIdResponseData producer = init();
        assertThat(txnOffsetCommit(producer, 3)).isEqualTo(Errors.NONE);
        assertThat(endTxn(producer)).isEqualTo(Errors.NONE);
        assertThat(txnOffsetCommit(producer, 5)).isEqualTo(Errors.NONE);
        afterOffsetsRead.set(() -> {
            TransactionOutcome ended = fixture.agent()
                    .transactions()
                    .endTransaction(
                            TRANSACTIONAL_ID,
                            new ProducerEpoch(producer.producerId(), producer.producerEpoch()),
                            true,
                            false);
            assertThat(ended).isInstanceOf(TransactionOutcome.Done.class);
        });

        OffsetFetchResponsePartition answer = offsetFetch();

        assertThat(afterOffsetsRead.get())
                .as("the transaction ended during the fetch")
                .isNull();
        // Either the fetch read before the end (the offset is still pending) or after it (5 is stable).
        assertThat(answer.errorCode() == Errors.UNSTABLE_OFFSET_COMMIT.code() || answer.committedOffset() == 5)
                .as(
                        "OffsetFetch answered offset %d with error %s, the offset the transaction replaced as stable",
                        answer.committedOffset(), Errors.forCode(answer.errorCode()))
                .isTrue();
        assertThat(offsetFetch().committedOffset()).isEqualTo(5);
    }

    /** The reads of a group's committed or pending offsets, whichever the agent makes. */
    private static final Set<String> OFFSET_READS = Set.of("committedOffsets", "pendingOffsets", "fetchOffsets");

    /** The agent's view of the store: runs {@link #afterOffsetsRead} once after a read of a group's offsets. */
    private final class EndingBetweenReads extends ForwardingMetadataStore {

        EndingBetweenReads(MetadataStore delegate) {
            super(delegate);
        }

        @Override
        protected <T> T call(MetadataOperation operation, Supplier<T> call) {
            T result = call.get();
            boolean offsetsRead = operation.kind() == OperationKind.READ && OFFSET_READS.contains(operation.method());
            Runnable hook = offsetsRead ? afterOffsetsRead.getAndSet(null) : null;
            if (hook != null) {
                hook.run();
            }
            return result;
        }
    }

    private InitProducerIdResponseData init() {
        InitProducerIdResponseData response = call(
                ApiKeys.INIT_PRODUCER_ID,
                4,
                new InitProducerIdRequestData()
                        .setTransactionalId(TRANSACTIONAL_ID)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1));
        assertThat(response.errorCode()).isZero();
        return response;
    }

    private Errors txnOffsetCommit(InitProducerIdResponseData producer, long offset) {
        TxnOffsetCommitResponseData response = call(
                ApiKeys.TXN_OFFSET_COMMIT,
                3,
                new TxnOffsetCommitRequestData()
                        .setTransactionalId(TRANSACTIONAL_ID)
                        .setGroupId(GROUP)
                        .setProducerId(producer.producerId())
                        .setProducerEpoch(producer.producerEpoch())
                        .setGenerationIdOrMemberEpoch(-1)
                        .setMemberId("")
                        .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                                .setName("orders")
                                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(offset)
                                        .setCommittedMetadata(""))))));
        return Errors.forCode(response.topics().get(0).partitions().get(0).errorCode());
    }

    private Errors endTxn(InitProducerIdResponseData producer) {
        EndTxnResponseData response = call(
                ApiKeys.END_TXN,
                3,
                new EndTxnRequestData()
                        .setTransactionalId(TRANSACTIONAL_ID)
                        .setProducerId(producer.producerId())
                        .setProducerEpoch(producer.producerEpoch())
                        .setCommitted(true));
        return Errors.forCode(response.errorCode());
    }

    private OffsetFetchResponsePartition offsetFetch() {
        OffsetFetchResponseData response = call(
                ApiKeys.OFFSET_FETCH,
                7,
                new OffsetFetchRequestData()
                        .setGroupId(GROUP)
                        .setRequireStable(true)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                                .setName("orders")
                                .setPartitionIndexes(List.of(0)))));
        return response.topics().get(0).partitions().get(0);
    }

    @SuppressWarnings("unchecked")
    private <R extends ApiMessage> R call(ApiKeys key, int version, ApiMessage request) {
        return (R) client.call(key, (short) version, ++correlation, request).body();
    }
}
