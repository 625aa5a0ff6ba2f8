package io.floe.tableflow;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of PostgreSQL that, once armed, cuts the connection that carries the next commit
 * of the Iceberg JDBC catalog (its {@code UPDATE iceberg_tables}): either before PostgreSQL sees it, or
 * after PostgreSQL executed and committed it and answered (the answer is dropped). The catalog's
 * connection pool then reconnects through the proxy and runs the UPDATE again, as it does in production
 * when PostgreSQL drops a connection. The catalog's URL needs {@code prepareThreshold=0}, so that every
 * execution carries its SQL text.
 */
final class ConnectionCutProxy implements AutoCloseable {

    /** Where the armed cut falls. */
    enum Cut {
        BEFORE_SERVER,
        AFTER_ANSWER
    }

    private static final byte[] CATALOG_COMMIT =
            "UPDATE iceberg_tables SET metadata_location".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket listener;
    private final int targetPort;
    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "connection-cut-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicReference<Cut> armed = new AtomicReference<>();
    private final AtomicInteger cuts = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    ConnectionCutProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.submit(this::accept);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** The next catalog commit through the proxy is cut as {@code cut} says, once. */
    void arm(Cut cut) {
        armed.set(cut);
    }

    /** Connections cut so far. */
    int cuts() {
        return cuts.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(server);
                Link link = new Link(client, server);
                threads.submit(link::clientToServer);
                threads.submit(link::serverToClient);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** One proxied connection. */
    private final class Link {
        private final Socket client;
        private final Socket server;
        private volatile boolean dropAnswer;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void clientToServer() {
            byte[] buffer = new byte[1 << 16];
            try (InputStream in = client.getInputStream();
                    OutputStream out = server.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) > 0) {
                    if (contains(buffer, read, CATALOG_COMMIT)) {
                        Cut cut = armed.getAndSet(null);
                        if (cut == Cut.BEFORE_SERVER) {
                            cut();
                            return;
                        }
                        dropAnswer = cut == Cut.AFTER_ANSWER;
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                closeQuietly();
            }
        }

        void serverToClient() {
            byte[] buffer = new byte[1 << 16];
            try (InputStream in = server.getInputStream();
                    OutputStream out = client.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) > 0) {
                    if (dropAnswer) {
                        // The answer ends with ReadyForQuery ('Z', length 5, status): by then the
                        // autocommitted UPDATE is durable. Drop it and cut.
                        if (read >= 6 && buffer[read - 6] == 'Z' && buffer[read - 2] == 5) {
                            cut();
                            return;
                        }
                        continue;
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                closeQuietly();
            }
        }

        private void cut() {
            cuts.incrementAndGet();
            closeQuietly();
        }

        private void closeQuietly() {
            try {
                client.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            try {
                server.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private static boolean contains(byte[] buffer, int length, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (buffer[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        threads.shutdownNow();
    }
}
