package io.floe.kafka.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.floe.kafka.api.ApiRegistry;
import io.floe.kafka.api.ClientConnection;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.codec.RequestEncoder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The steps the dispatcher owns for every API, shown with APIs that do nothing but record their
 * calls: the version check, the hand-off to the blocking executor, and the advertised ranges.
 */
class RequestDispatcherTest {

    private final EventLoop eventLoop = new DefaultEventLoop();
    private final ExecutorService blocking = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-blocking"));
    private final Recording<DescribeClusterRequestData, DescribeClusterResponseData> cluster =
            new Recording<>(new DescribeClusterResponseData().setClusterId("c"));
    private final Recording<ListGroupsRequestData, ListGroupsResponseData> groups =
            new Recording<>(new ListGroupsResponseData());
    private final ApiRegistry registry = ApiRegistry.builder()
            .eventLoop(ApiKeys.DESCRIBE_CLUSTER, 0, 1, cluster)
            .blocking(ApiKeys.LIST_GROUPS, 1, 4, groups)
            .build();

    @AfterEach
    void stop() throws InterruptedException {
        eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        blocking.shutdownNow();
        blocking.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aVersionOutsideTheDeclaredRangeIsRefusedWithoutCallingTheApi() {
        RequestDispatcher dispatcher = dispatcher(blocking);

        ApiMessage above = answer(dispatcher, ApiKeys.DESCRIBE_CLUSTER, (short) 2, new DescribeClusterRequestData());
        ApiMessage below = answer(dispatcher, ApiKeys.LIST_GROUPS, (short) 0, new ListGroupsRequestData());

        assertThat(((DescribeClusterResponseData) above).errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(((ListGroupsResponseData) below).errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(cluster.threads).isEmpty();
        assertThat(groups.threads).isEmpty();

        answer(dispatcher, ApiKeys.DESCRIBE_CLUSTER, (short) 1, new DescribeClusterRequestData());
        assertThat(cluster.threads).as("a declared version reaches the API").hasSize(1);
    }

    @Test
    void aBlockingApiRunsOnTheBlockingExecutorAndAnEventLoopApiOnTheEventLoop() {
        RequestDispatcher dispatcher = dispatcher(blocking);

        answer(dispatcher, ApiKeys.LIST_GROUPS, (short) 4, new ListGroupsRequestData());
        answer(dispatcher, ApiKeys.DESCRIBE_CLUSTER, (short) 1, new DescribeClusterRequestData());

        assertThat(groups.threads).hasSize(1);
        assertThat(eventLoop.inEventLoop(groups.threads.get(0)))
                .as("blocking API on the event loop")
                .isFalse();
        assertThat(groups.threads.get(0).getName()).isEqualTo("test-blocking");
        assertThat(cluster.threads).hasSize(1);
        assertThat(eventLoop.inEventLoop(cluster.threads.get(0))).isTrue();
    }

    @Test
    void aBlockingApiTheExecutorRefusesIsAnsweredAsBusy() {
        RequestDispatcher dispatcher = dispatcher(task -> {
            throw new RejectedExecutionException("queue full");
        });

        ListGroupsResponseData response = (ListGroupsResponseData)
                answer(dispatcher, ApiKeys.LIST_GROUPS, (short) 4, new ListGroupsRequestData());

        assertThat(response.errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
        assertThat(groups.threads).isEmpty();
    }

    @Test
    void apiVersionsAdvertisesExactlyTheDeclaredRanges() {
        ApiVersionsResponseData response = (ApiVersionsResponseData) answer(
                dispatcher(blocking),
                ApiKeys.API_VERSIONS,
                (short) 3,
                new ApiVersionsRequestData().setClientSoftwareName("test").setClientSoftwareVersion("1"));

        assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.apiKeys())
                .extracting(ApiVersion::apiKey, ApiVersion::minVersion, ApiVersion::maxVersion)
                .containsExactlyInAnyOrder(
                        tuple(ApiKeys.DESCRIBE_CLUSTER.id, (short) 0, (short) 1),
                        tuple(ApiKeys.LIST_GROUPS.id, (short) 1, (short) 4),
                        tuple(ApiKeys.API_VERSIONS.id, ApiRegistry.API_VERSIONS.min(), ApiRegistry.API_VERSIONS.max()));
        assertThat(registry.servedVersions()).hasSize(3);
    }

    private RequestDispatcher dispatcher(Executor executor) {
        return new RequestDispatcher(registry, executor, new NetworkMetrics(new SimpleMeterRegistry()), 1024 * 1024);
    }

    /** Dispatches one request on the event loop and waits for its answer's body. */
    private ApiMessage answer(RequestDispatcher dispatcher, ApiKeys key, short version, ApiMessage request) {
        ClientConnection connection = new ClientConnection(new InetSocketAddress("127.0.0.1", 1));
        Outcome outcome = eventLoop
                .submit(() -> dispatcher.dispatch(
                        RequestEncoder.encode(new RequestHeader(key, version, "test", 7), request), connection))
                .syncUninterruptibly()
                .getNow();
        Reply reply = ((Outcome.Respond) outcome).reply().toCompletableFuture().join();
        assertThat(reply).isInstanceOf(Reply.Message.class);
        return ((Reply.Message) reply).body();
    }

    /** An API with no logic: records the thread of each call and answers {@code response}. */
    private static final class Recording<Q extends ApiMessage, R extends ApiMessage> implements KafkaApi<Q, R> {

        final List<Thread> threads = new CopyOnWriteArrayList<>();
        private final R response;

        Recording(R response) {
            this.response = response;
        }

        @Override
        public CompletionStage<R> handle(RequestContext context, Q request) {
            threads.add(Thread.currentThread());
            return CompletableFuture.completedFuture(response);
        }
    }
}
