package io.floe.metadata.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of PostgreSQL that, once armed, lets the next COMMIT through to the server
 * and then breaks the client's connection instead of passing on the server's answer: the commit is
 * durable, and the client cannot know. It recognizes the answer by its CommandComplete tag
 * {@code COMMIT\0}, which the server sends however the client phrased the statement.
 */
final class CommitCuttingProxy implements AutoCloseable {

    private static final byte[] COMMIT_COMPLETE = "COMMIT\0".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket listener;
    private final int upstreamPort;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "commit-cutting-proxy");
        thread.setDaemon(true);
        return thread;
    });

    private CommitCuttingProxy(ServerSocket listener, int upstreamPort) {
        this.listener = listener;
        this.upstreamPort = upstreamPort;
    }

    static CommitCuttingProxy start(int upstreamPort) throws IOException {
        CommitCuttingProxy proxy =
                new CommitCuttingProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), upstreamPort);
        proxy.threads.execute(proxy::accept);
        return proxy;
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Breaks the connection that next receives a COMMIT's answer, after the server has committed. */
    void cutAfterNextCommit() {
        armed.set(true);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                sockets.add(client);
                sockets.add(server);
                threads.execute(() -> pump(client, server, false));
                threads.execute(() -> pump(server, client, true));
            } catch (IOException closed) {
                return;
            }
        }
    }

    /** Copies {@code from} to {@code to}; answers from the server are checked for the armed cut. */
    private void pump(Socket from, Socket to, boolean fromServer) {
        byte[] buffer = new byte[64 * 1024];
        byte[] tail = new byte[0];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                if (fromServer && armed.get()) {
                    byte[] window = concat(tail, buffer, read);
                    if (contains(window, COMMIT_COMPLETE) && armed.compareAndSet(true, false)) {
                        closeQuietly(to);
                        closeQuietly(from);
                        return;
                    }
                    tail = suffix(window, COMMIT_COMPLETE.length - 1);
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException closed) {
            // One side went away; the finally below closes the other.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static byte[] concat(byte[] tail, byte[] buffer, int length) {
        byte[] window = new byte[tail.length + length];
        System.arraycopy(tail, 0, window, 0, tail.length);
        System.arraycopy(buffer, 0, window, tail.length, length);
        return window;
    }

    private static byte[] suffix(byte[] bytes, int length) {
        int from = Math.max(0, bytes.length - length);
        byte[] suffix = new byte[bytes.length - from];
        System.arraycopy(bytes, from, suffix, 0, suffix.length);
        return suffix;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already broken: nothing more to release.
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(CommitCuttingProxy::closeQuietly);
        threads.shutdownNow();
    }
}
