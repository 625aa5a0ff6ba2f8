package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.faults.HttpMessages.Head;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP proxy on 127.0.0.1 between S3 clients and an S3 server that injects the faults an object
 * store client meets: {@code 503 SlowDown} (S3's throttling answer, which the server did not act on),
 * added latency before an answer, a PUT the server applied whose response is lost (the proxy reads
 * the answer and closes the client's connection without it), and every open connection cut at once.
 * Faults come on command ({@link #slowDownNext}, {@link #loseNextPutResponses}, {@link #cutConnections})
 * and at random, at the {@link Rates} set, from a seeded {@link Random}; every one injected is
 * counted. Which request meets a random fault depends on the order requests arrive in, so a seed
 * replays the rates and not the exact requests.
 *
 * <p>Each client connection is served by one thread, one message at a time (S3 clients do not
 * pipeline), over one upstream connection of its own. The proxy answers {@code Expect: 100-continue}
 * itself and removes it upstream (signers leave {@code Expect} out of the signature), so a faulted
 * request can be refused before its body is sent.
 */
final class S3FaultProxy implements AutoCloseable {

    enum Fault {
        SLOW_DOWN,
        LATENCY,
        LOST_PUT_RESPONSE,
        CONNECTIONS_CUT
    }

    /** Per-request chances of each random fault, and the most latency one may add. */
    record Rates(double slowDown, double latency, double lostPutResponse, Duration latencyMax) {
        static final Rates NONE = new Rates(0, 0, 0, Duration.ZERO);
    }

    private static final String SLOW_DOWN_BODY = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>"
            + "<RequestId>S3FAULTPROXY</RequestId><HostId>s3-fault-proxy</HostId></Error>";
    private static final byte[] SLOW_DOWN = ("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\n"
                    + "x-amz-request-id: S3FAULTPROXY\r\nConnection: close\r\nContent-Length: "
                    + SLOW_DOWN_BODY.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + SLOW_DOWN_BODY)
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** What happens to one request. */
    private record Action(Fault fault, long latencyMs) {
        static final Action FORWARD = new Action(null, 0);
    }

    private final int upstreamPort;
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "s3-fault-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Map<Fault, AtomicInteger> injected = new EnumMap<>(Fault.class);
    private final Map<String, AtomicInteger> forwarded = new ConcurrentHashMap<>();
    // guarded by this:
    private final Random random;
    private Rates rates = Rates.NONE;
    private int slowDownsOrdered;
    private int lostPutResponsesOrdered;

    S3FaultProxy(URI upstream, long seed) throws IOException {
        this.upstreamPort = upstream.getPort();
        this.random = new Random(seed);
        for (Fault fault : Fault.values()) {
            injected.put(fault, new AtomicInteger());
        }
        this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Random faults at {@code next} from now on; {@link Rates#NONE} stops them (orders still apply). */
    synchronized void rates(Rates next) {
        rates = next;
    }

    /** Answers the next {@code count} requests, of any method, with 503 SlowDown. */
    synchronized void slowDownNext(int count) {
        slowDownsOrdered += count;
    }

    /** Loses the responses of the next {@code count} PUT requests, after the server applied them. */
    synchronized void loseNextPutResponses(int count) {
        lostPutResponsesOrdered += count;
    }

    /** Stops the faults ordered and not yet injected, and the random ones. */
    synchronized void heal() {
        rates = Rates.NONE;
        slowDownsOrdered = 0;
        lostPutResponsesOrdered = 0;
    }

    /** Closes every open connection, idle or in the middle of a request; returns how many client connections. */
    int cutConnections() {
        injected.get(Fault.CONNECTIONS_CUT).incrementAndGet();
        int cut = 0;
        for (Socket socket : sockets) {
            if (socket.getLocalPort() == server.getLocalPort()) {
                cut++;
            }
            closeQuietly(socket);
        }
        return cut;
    }

    /** How many faults of each kind were injected so far. */
    Map<Fault, Integer> injected() {
        Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
        injected.forEach((fault, count) -> counts.put(fault, count.get()));
        return counts;
    }

    /** Requests that reached the server, by method. */
    Map<String, Integer> forwarded() {
        Map<String, Integer> counts = new TreeMap<>();
        forwarded.forEach((method, count) -> counts.put(method, count.get()));
        return counts;
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(this::closeQuietly);
        threads.shutdownNow();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = track(server.accept());
                threads.execute(() -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private synchronized Action decide(String method) {
        boolean put = method.equals("PUT");
        if (slowDownsOrdered > 0) {
            slowDownsOrdered--;
            return new Action(Fault.SLOW_DOWN, 0);
        }
        if (put && lostPutResponsesOrdered > 0) {
            lostPutResponsesOrdered--;
            return new Action(Fault.LOST_PUT_RESPONSE, 0);
        }
        // Every draw is made whatever the outcome, so a request's draws do not depend on earlier outcomes.
        double slowDown = random.nextDouble();
        double lost = random.nextDouble();
        double latency = random.nextDouble();
        long latencyMs = (long) (random.nextDouble() * rates.latencyMax().toMillis());
        if (slowDown < rates.slowDown()) {
            return new Action(Fault.SLOW_DOWN, 0);
        }
        if (put && lost < rates.lostPutResponse()) {
            return new Action(Fault.LOST_PUT_RESPONSE, 0);
        }
        if (latency < rates.latency() && latencyMs > 0) {
            return new Action(Fault.LATENCY, latencyMs);
        }
        return Action.FORWARD;
    }

    /** Serves one client connection until either side closes it or a fault ends it. */
    private void serve(Socket client) {
        Socket upstream = null;
        try {
            InputStream clientIn = new BufferedInputStream(client.getInputStream());
            OutputStream clientOut = new BufferedOutputStream(client.getOutputStream());
            InputStream upstreamIn = null;
            OutputStream upstreamOut = null;
            while (true) {
                Head request = HttpMessages.readHead(clientIn);
                if (request == null) {
                    return;
                }
                String method = request.method();
                Action action = decide(method);
                boolean expectsContinue = request.hasToken("Expect", "100-continue");
                if (action.fault() == Fault.SLOW_DOWN) {
                    if (!expectsContinue) {
                        HttpMessages.copyRequestBody(request, clientIn, OutputStream.nullOutputStream());
                    }
                    clientOut.write(SLOW_DOWN);
                    clientOut.flush();
                    count(Fault.SLOW_DOWN);
                    return;
                }
                if (expectsContinue) {
                    clientOut.write(CONTINUE);
                    clientOut.flush();
                }
                if (upstream == null) {
                    upstream = track(new Socket(InetAddress.getLoopbackAddress(), upstreamPort));
                    upstreamIn = new BufferedInputStream(upstream.getInputStream());
                    upstreamOut = new BufferedOutputStream(upstream.getOutputStream());
                }
                request.without("Expect").writeTo(upstreamOut);
                HttpMessages.copyRequestBody(request, clientIn, upstreamOut);
                upstreamOut.flush();
                forwarded.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
                Head response = HttpMessages.readHead(upstreamIn);
                while (response != null && response.status() / 100 == 1) {
                    response = HttpMessages.readHead(upstreamIn); // no Expect upstream: interim answers are dropped
                }
                if (response == null) {
                    return; // the server closed the connection: so does the proxy
                }
                if (action.fault() == Fault.LOST_PUT_RESPONSE) {
                    HttpMessages.copyResponseBody(method, response, upstreamIn, OutputStream.nullOutputStream());
                    count(Fault.LOST_PUT_RESPONSE);
                    return; // the client's connection closes unanswered
                }
                if (action.fault() == Fault.LATENCY) {
                    count(Fault.LATENCY);
                    Thread.sleep(action.latencyMs()); // the fault itself: a slow answer
                }
                response.writeTo(clientOut);
                boolean reusable = HttpMessages.copyResponseBody(method, response, upstreamIn, clientOut);
                clientOut.flush();
                if (!reusable || response.closes() || request.closes()) {
                    return;
                }
            }
        } catch (IOException e) {
            // A side closed or a connection was cut: the exchange is over, as on a real network.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(client);
            if (upstream != null) {
                closeQuietly(upstream);
            }
        }
    }

    private void count(Fault fault) {
        injected.get(fault).incrementAndGet();
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
}
