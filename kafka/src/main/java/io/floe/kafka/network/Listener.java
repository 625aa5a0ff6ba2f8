package io.floe.kafka.network;

import io.floe.kafka.api.ApiRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bound Kafka listener: Netty event loops (epoll when its native library is present, else NIO)
 * accepting connections on one address and serving them through the {@link ApiRegistry}.
 */
public final class Listener implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(Listener.class);
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

    private final EventLoopGroup acceptor;
    private final EventLoopGroup workers;
    private final Channel serverChannel;
    private final Set<ConnectionHandler> connections;
    private final InetSocketAddress address;

    private Listener(
            EventLoopGroup acceptor,
            EventLoopGroup workers,
            Channel serverChannel,
            Set<ConnectionHandler> connections) {
        this.acceptor = acceptor;
        this.workers = workers;
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.address = (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * Binds {@code host:port} (port 0 picks a free one) and starts serving.
     *
     * @param maxFrameBytes largest request frame accepted
     * @param maxInFlight answers a connection may have pending before it is no longer read
     * @param blocking runs the APIs the registry declares blocking
     */
    public static Listener bind(
            String host,
            int port,
            int maxFrameBytes,
            int maxInFlight,
            ApiRegistry registry,
            Executor blocking,
            NetworkMetrics metrics) {
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType =
                epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup acceptor =
                new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("floe-kafka-accept", true), io);
        EventLoopGroup workers =
                new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("floe-kafka-io", true), io);
        RequestDispatcher dispatcher = new RequestDispatcher(registry, blocking, metrics, maxFrameBytes);
        Set<ConnectionHandler> connections = ConcurrentHashMap.newKeySet();
        try {
            Channel channel = new ServerBootstrap()
                    .group(acceptor, workers)
                    .channel(channelType)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            ConnectionHandler handler = new ConnectionHandler(dispatcher, metrics, maxInFlight);
                            connections.add(handler);
                            channel.closeFuture().addListener(closed -> connections.remove(handler));
                            channel.pipeline().addLast("frames", new FrameDecoder(maxFrameBytes));
                            channel.pipeline().addLast("requests", handler);
                        }
                    })
                    .bind(host, port)
                    .syncUninterruptibly()
                    .channel();
            Listener listener = new Listener(acceptor, workers, channel, connections);
            LOGGER.info(
                    "Kafka listener bound address={} transport={} maxFrameBytes={} maxInFlightPerConnection={}",
                    listener.address,
                    epoll ? "epoll" : "nio",
                    maxFrameBytes,
                    maxInFlight);
            return listener;
        } catch (RuntimeException e) {
            acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    public InetSocketAddress address() {
        return address;
    }

    public int openConnections() {
        return connections.size();
    }

    /** Closes with a 10 second grace period for in-flight requests. */
    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /**
     * Stops accepting, lets every connection finish the requests it has (up to {@code grace}), closes
     * the connections and stops the event loops.
     */
    public void close(Duration grace) {
        serverChannel.close().syncUninterruptibly();
        CompletableFuture<?>[] drains =
                connections.stream().map(ConnectionHandler::drain).toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(drains).get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOGGER.warn("Kafka listener closing with requests still in flight address={} grace={}", address, grace);
        } catch (ExecutionException e) {
            LOGGER.warn("Kafka listener drain failed address={}", address, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        CompletableFuture<?>[] closes =
                connections.stream().map(ConnectionHandler::close).toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(closes).get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOGGER.warn("Kafka listener could not close every connection address={}", address, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownGracefully(0, grace.toMillis(), TimeUnit.MILLISECONDS).syncUninterruptibly();
        acceptor.shutdownGracefully(0, grace.toMillis(), TimeUnit.MILLISECONDS).syncUninterruptibly();
        LOGGER.info("Kafka listener closed address={}", address);
    }
}
