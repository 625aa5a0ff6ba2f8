package io.floe.kafka;

import io.floe.kafka.codec.DecodedResponse;
import io.floe.kafka.codec.RequestEncoder;
import io.floe.kafka.codec.ResponseDecoder;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/** A blocking raw-socket Kafka client for tests: frames out, frames in, nothing clever. */
public final class WireClient implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    public WireClient(int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(10_000);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void send(ApiKeys key, short version, int correlationId, ApiMessage body) {
        ByteBuffer frame = RequestEncoder.encode(new RequestHeader(key, version, "wire-test", correlationId), body);
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        sendFrame(bytes);
    }

    /** Writes {@code bytes} behind their int32 size. */
    public void sendFrame(byte[] bytes) {
        try {
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code bytes} as they are, size prefix included or not. */
    public void sendRaw(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next frame, without its size prefix. */
    public ByteBuffer receiveFrame() {
        try {
            int size = in.readInt();
            byte[] bytes = new byte[size];
            in.readFully(bytes);
            return ByteBuffer.wrap(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public DecodedResponse receive(ApiKeys key, short version) {
        return ResponseDecoder.decode(receiveFrame(), key, version);
    }

    public DecodedResponse call(ApiKeys key, short version, int correlationId, ApiMessage body) {
        send(key, version, correlationId, body);
        return receive(key, version);
    }

    /** True when the server closed the connection (end of stream or reset) within the read timeout. */
    public boolean closedByServer() {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (EOFException | SocketException e) {
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
