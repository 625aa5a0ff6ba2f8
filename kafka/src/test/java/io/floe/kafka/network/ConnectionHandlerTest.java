package io.floe.kafka.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.kafka.api.ApiRegistry;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.codec.DecodedResponse;
import io.floe.kafka.codec.RequestEncoder;
import io.floe.kafka.codec.ResponseDecoder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * One connection on an embedded channel, with an API whose answers the test completes by hand: the
 * answers' order, the in-flight bound, handler failures and draining.
 */
class ConnectionHandlerTest {

    private static final short VERSION = 1;

    private final ManualApi api = new ManualApi();
    private final RequestDispatcher dispatcher = new RequestDispatcher(
            ApiRegistry.builder().eventLoop(ApiKeys.DESCRIBE_CLUSTER, 0, 2, api).build(),
            Runnable::run,
            new NetworkMetrics(new SimpleMeterRegistry()),
            1024 * 1024);

    @Test
    void aCompletedAnswerWaitsForTheEarlierOnes() {
        EmbeddedChannel channel = channel(10);
        send(channel, 1);
        send(channel, 2);
        send(channel, 3);

        api.complete(2);
        api.complete(3);
        Object nothingYet = channel.readOutbound();
        assertThat(nothingYet).isNull();

        api.complete(1);
        assertThat(List.of(
                        receive(channel).correlationId(),
                        receive(channel).correlationId(),
                        receive(channel).correlationId()))
                .containsExactly(1, 2, 3);
    }

    @Test
    void stopsReadingWhileTheInFlightBoundIsReached() {
        EmbeddedChannel channel = channel(2);
        send(channel, 1);
        assertThat(channel.config().isAutoRead()).isTrue();
        send(channel, 2);
        assertThat(channel.config().isAutoRead()).isFalse();

        api.complete(1);
        assertThat(channel.config().isAutoRead()).isTrue();
        assertThat(receive(channel).correlationId()).isEqualTo(1);
    }

    @Test
    void aFailingHandlerAnswersWithTheApisErrorResponse() {
        EmbeddedChannel channel = channel(10);
        send(channel, 1);

        api.fail(1, new IllegalStateException("boom"));

        DescribeClusterResponseData response =
                (DescribeClusterResponseData) receive(channel).body();
        assertThat(response.errorCode()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR.code());
        // Kafka's error responses never carry the message of an unknown server error.
        assertThat(response.errorMessage()).isNull();
        assertThat(channel.isActive()).isTrue();
    }

    @Test
    void drainingStopsReadingAndCompletesWhenTheQueueIsEmpty() {
        EmbeddedChannel channel = channel(10);
        ConnectionHandler handler = channel.pipeline().get(ConnectionHandler.class);
        send(channel, 1);

        CompletableFuture<Void> drained = handler.drain();
        channel.runPendingTasks();
        assertThat(channel.config().isAutoRead()).isFalse();
        assertThat(drained).isNotDone();

        api.complete(1);
        assertThat(drained).isDone();
        assertThat(receive(channel).correlationId()).isEqualTo(1);
    }

    private EmbeddedChannel channel(int maxInFlight) {
        return new EmbeddedChannel(
                new FrameDecoder(1024 * 1024),
                new ConnectionHandler(dispatcher, new NetworkMetrics(new SimpleMeterRegistry()), maxInFlight));
    }

    private static void send(EmbeddedChannel channel, int correlationId) {
        ByteBuffer frame = RequestEncoder.encode(
                new RequestHeader(ApiKeys.DESCRIBE_CLUSTER, VERSION, "test", correlationId),
                new DescribeClusterRequestData());
        ByteBuf bytes = Unpooled.buffer(4 + frame.remaining())
                .writeInt(frame.remaining())
                .writeBytes(frame);
        channel.writeInbound(bytes);
    }

    private static DecodedResponse receive(EmbeddedChannel channel) {
        ByteBuf frame = channel.readOutbound();
        try {
            assertThat(frame.readInt()).isEqualTo(frame.readableBytes());
            return ResponseDecoder.decode(frame.nioBuffer(), ApiKeys.DESCRIBE_CLUSTER, VERSION);
        } finally {
            frame.release();
        }
    }

    /** DescribeCluster whose answers complete when the test says so. */
    private static final class ManualApi implements KafkaApi<DescribeClusterRequestData, DescribeClusterResponseData> {

        private final Map<Integer, CompletableFuture<DescribeClusterResponseData>> pending = new ConcurrentHashMap<>();

        @Override
        public CompletionStage<DescribeClusterResponseData> handle(
                RequestContext context, DescribeClusterRequestData request) {
            return pending.computeIfAbsent(context.correlationId(), id -> new CompletableFuture<>());
        }

        void complete(int correlationId) {
            pending.get(correlationId).complete(new DescribeClusterResponseData().setClusterId("c" + correlationId));
        }

        void fail(int correlationId, RuntimeException failure) {
            pending.get(correlationId).completeExceptionally(failure);
        }
    }
}
