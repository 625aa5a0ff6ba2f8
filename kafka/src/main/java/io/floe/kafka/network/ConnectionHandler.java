package io.floe.kafka.network;

import io.floe.kafka.api.ClientConnection;
import io.floe.kafka.codec.EncodedFrame;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection. Requests are dispatched in arrival order on the connection's event loop;
 * their answers wait in a queue and go out in the same order, a finished answer waiting for the
 * earlier ones. While {@code maxInFlight} answers are pending, or the socket's write buffer is full,
 * the connection is not read. All fields are touched only on the event loop.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOGGER = LoggerFactory.getLogger(ConnectionHandler.class);

    private final RequestDispatcher dispatcher;
    private final NetworkMetrics metrics;
    private final int maxInFlight;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private ChannelHandlerContext ctx;
    /** The connection as the APIs see it; set when the channel becomes active. */
    private ClientConnection connection;
    /** No more requests are read or served; the connection closes once the queued answers are written. */
    private boolean closing;

    private boolean closeRequested;
    /** The server is shutting down: nothing more is read; {@link #drained} completes when the queue empties. */
    private boolean draining;

    ConnectionHandler(RequestDispatcher dispatcher, NetworkMetrics metrics, int maxInFlight) {
        this.dispatcher = dispatcher;
        this.metrics = metrics;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void channelActive(ChannelHandlerContext context) throws Exception {
        this.ctx = context;
        this.connection = new ClientConnection(context.channel().remoteAddress());
        metrics.connectionOpened();
        LOGGER.debug("Connection opened peer={}", peer());
        super.channelActive(context);
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) throws Exception {
        metrics.connectionClosed();
        LOGGER.debug("Connection closed peer={} unanswered={}", peer(), slots.size());
        slots.clear();
        if (connection != null) {
            connection.close();
        }
        drained.complete(null);
        super.channelInactive(context);
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        if (!(message instanceof InboundFrame frame)) {
            ReferenceCountUtil.release(message);
            return;
        }
        if (closing) {
            return;
        }
        long startNanos = metrics.nanoTime();
        Outcome outcome;
        if (frame instanceof InboundFrame.Request request) {
            outcome = dispatcher.dispatch(request.frame(), connection);
        } else if (frame instanceof InboundFrame.Oversized oversized) {
            outcome = dispatcher.oversized(oversized.head(), oversized.size(), peer());
        } else {
            metrics.badFrame("negative_size");
            LOGGER.warn(
                    "Negative frame size, closing connection peer={} size={}",
                    peer(),
                    ((InboundFrame.Invalid) frame).size());
            outcome = new Outcome.Close("negative frame size");
        }
        accept(outcome, startNanos);
        writeReady();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) throws Exception {
        updateReading();
        super.channelWritabilityChanged(context);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (cause instanceof IOException) {
            LOGGER.debug("Connection failed peer={} cause={}", peer(), cause.toString());
        } else {
            LOGGER.warn("Unexpected error on connection, closing it peer={}", peer(), cause);
        }
        context.close();
    }

    /**
     * Stops reading; the future completes once every queued answer is written (or the connection is
     * gone). Callable from any thread.
     */
    CompletableFuture<Void> drain() {
        Channel channel = ctx == null ? null : ctx.channel();
        if (channel == null || !channel.isActive()) {
            return CompletableFuture.completedFuture(null);
        }
        channel.eventLoop().execute(() -> {
            draining = true;
            updateReading();
            if (slots.isEmpty()) {
                drained.complete(null);
            }
        });
        return drained;
    }

    /**
     * Closes the connection once the answers already handed to the socket are sent, dropping those
     * still pending. Callable from any thread.
     */
    CompletableFuture<Void> close() {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        if (ctx == null) {
            closed.complete(null);
            return closed;
        }
        ctx.channel().closeFuture().addListener(done -> closed.complete(null));
        try {
            ctx.executor().execute(this::closeAfterWrites);
        } catch (RejectedExecutionException e) {
            ctx.channel().close();
        }
        return closed;
    }

    /** Closing right away would drop written bytes the socket has not taken yet; close after them. */
    private void closeAfterWrites() {
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    private void accept(Outcome outcome, long startNanos) {
        if (outcome instanceof Outcome.Respond respond) {
            Slot slot = new Slot(respond.api(), startNanos);
            int correlationId = respond.correlationId();
            slots.add(slot);
            if (respond.closeAfter()) {
                closing = true;
            }
            onEventLoop(respond.reply(), (reply, failure) -> {
                slot.reply = failure == null ? reply : RequestDispatcher.lastResort(correlationId);
                writeReady();
            });
        } else if (outcome instanceof Outcome.Silent silent) {
            onEventLoop(silent.failed(), (failed, failure) -> {
                metrics.requestCompletedSilently(silent.api(), startNanos, metrics.nanoTime());
                if (failure != null || Boolean.TRUE.equals(failed)) {
                    LOGGER.warn(
                            "Request without response (acks=0) failed, closing connection as Kafka does peer={} "
                                    + "api={}",
                            peer(),
                            silent.api());
                    closing = true;
                    writeReady();
                }
            });
        } else {
            closing = true;
        }
    }

    /** Writes the answers at the head of the queue that are complete, in order; closes or drains when due. */
    private void writeReady() {
        if (!ctx.channel().isActive()) {
            return;
        }
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peek().reply != null) {
            Slot slot = slots.poll();
            EncodedFrame frame = slot.reply.encode(ctx.alloc());
            metrics.responseSent(slot.api, frame.bytes(), slot.startNanos, metrics.nanoTime());
            for (Object part : frame.parts()) {
                ctx.write(part, ctx.voidPromise());
            }
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (slots.isEmpty()) {
            if (closing && !closeRequested) {
                closeRequested = true;
                closeAfterWrites();
            }
            if (draining) {
                drained.complete(null);
            }
        }
        updateReading();
    }

    private void updateReading() {
        Channel channel = ctx.channel();
        boolean read = !closing && !draining && slots.size() < maxInFlight && channel.isWritable();
        if (channel.config().isAutoRead() != read) {
            channel.config().setAutoRead(read);
        }
    }

    /** Runs {@code action} on this connection's event loop when {@code stage} completes. */
    private <T> void onEventLoop(CompletionStage<T> stage, BiConsumer<T, Throwable> action) {
        stage.whenComplete((value, failure) -> {
            if (ctx.executor().inEventLoop()) {
                action.accept(value, failure);
            } else {
                ctx.executor().execute(() -> action.accept(value, failure));
            }
        });
    }

    private SocketAddress peer() {
        return connection == null ? null : connection.peer();
    }

    /** One queued answer: filled in when its request completes. */
    private static final class Slot {
        final String api;
        final long startNanos;
        Reply reply;

        Slot(String api, long startNanos) {
            this.api = api;
            this.startNanos = startNanos;
        }
    }
}
