package io.floe.objectstore.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of an HTTP server that injects the faults an object store
 * client meets on real networks: a response lost after the server acted on the request, and an
 * internal server error. It recognises message starts only by their first bytes (a status line, a
 * request line), which is enough for the sequential requests of a keep-alive connection in a test.
 */
final class FaultProxy implements AutoCloseable {

    private static final byte[] INTERNAL_ERROR = bytes(
            "HTTP/1.1 500 Internal Server Error\r\n"
                    + "Content-Type: application/xml\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError</Code>"
                    + "<Message>injected by the test</Message><RequestId>fault-proxy</RequestId></Error>");

    private final int upstreamPort;
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "fault-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean dropNextResponse = new AtomicBoolean();
    private final AtomicInteger failNextGets = new AtomicInteger();
    private final AtomicInteger droppedResponses = new AtomicInteger();
    private final AtomicInteger injectedErrors = new AtomicInteger();

    FaultProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Forwards the next final (non-100) response's request, then closes the connection unanswered. */
    void dropNextResponse() {
        dropNextResponse.set(true);
    }

    /** Answers the next {@code count} GET requests with 500 InternalError instead of forwarding them. */
    void failNextGets(int count) {
        failNextGets.set(count);
    }

    int droppedResponses() {
        return droppedResponses.get();
    }

    int injectedErrors() {
        return injectedErrors.get();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        threads.shutdownNow();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = track(server.accept());
                Socket upstream = track(new Socket(InetAddress.getLoopbackAddress(), upstreamPort));
                threads.execute(() -> pumpRequests(client, upstream));
                threads.execute(() -> pumpResponses(upstream, client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pumpRequests(Socket client, Socket upstream) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = client.getInputStream();
                OutputStream out = upstream.getOutputStream()) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                if (startsWith(buffer, n, "GET ") && takeOne(failNextGets)) {
                    injectedErrors.incrementAndGet();
                    client.getOutputStream().write(INTERNAL_ERROR);
                    client.getOutputStream().flush();
                    return;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // the other side closed: the connection is over
        } finally {
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }

    private void pumpResponses(Socket upstream, Socket client) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = upstream.getInputStream();
                OutputStream out = client.getOutputStream()) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                boolean finalResponse = startsWith(buffer, n, "HTTP/1.1 ") && !startsWith(buffer, n, "HTTP/1.1 100");
                if (finalResponse && dropNextResponse.compareAndSet(true, false)) {
                    droppedResponses.incrementAndGet();
                    return;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // the other side closed: the connection is over
        } finally {
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }

    private Socket track(Socket socket) {
        sockets.add(socket);
        return socket;
    }

    private void closeQuietly(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static boolean takeOne(AtomicInteger counter) {
        return counter.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }

    private static boolean startsWith(byte[] buffer, int length, String prefix) {
        byte[] expected = prefix.getBytes(StandardCharsets.US_ASCII);
        if (length < expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if (buffer[i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] bytes(String format, String body) {
        return String.format(format, body.length(), body).getBytes(StandardCharsets.US_ASCII);
    }
}
