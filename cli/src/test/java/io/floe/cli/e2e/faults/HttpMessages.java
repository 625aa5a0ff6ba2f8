package io.floe.cli.e2e.faults;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Just enough HTTP/1.1 framing for {@link S3FaultProxy} to pass whole messages between an S3 client
 * and server one at a time: a message head (start line and headers) and its body, by
 * {@code Content-Length}, chunked transfer coding, or (responses only) until the connection closes.
 * Bodies are copied as they are, never decoded.
 */
final class HttpMessages {

    private static final int HEAD_BYTES_MAX = 64 * 1024;
    private static final int LINE_BYTES_MAX = 8 * 1024;
    private static final byte[] CRLF = {'\r', '\n'};

    private HttpMessages() {}

    /** A start line and its headers, in order, as received. */
    record Head(String startLine, List<String[]> headers) {

        String header(String name) {
            for (String[] header : headers) {
                if (header[0].equalsIgnoreCase(name)) {
                    return header[1];
                }
            }
            return null;
        }

        boolean hasToken(String name, String token) {
            String value = header(name);
            return value != null && value.toLowerCase(Locale.ROOT).contains(token);
        }

        /** The request method, for a request head. */
        String method() {
            return startLine.substring(0, startLine.indexOf(' '));
        }

        /** The status code, for a response head. */
        int status() {
            String[] parts = startLine.split(" ", 3);
            return Integer.parseInt(parts[1]);
        }

        boolean closes() {
            return hasToken("Connection", "close");
        }

        /** This head without the headers named {@code name}. */
        Head without(String name) {
            List<String[]> kept = new ArrayList<>();
            headers.forEach(header -> {
                if (!header[0].equalsIgnoreCase(name)) {
                    kept.add(header);
                }
            });
            return new Head(startLine, kept);
        }

        void writeTo(OutputStream out) throws IOException {
            StringBuilder text = new StringBuilder(startLine).append("\r\n");
            headers.forEach(header ->
                    text.append(header[0]).append(": ").append(header[1]).append("\r\n"));
            text.append("\r\n");
            out.write(text.toString().getBytes(StandardCharsets.ISO_8859_1));
        }
    }

    /** Reads a message head; {@code null} if the stream ended before its first byte (an idle connection closed). */
    static Head readHead(InputStream in) throws IOException {
        String startLine = readLine(in, true);
        if (startLine == null) {
            return null;
        }
        List<String[]> headers = new ArrayList<>();
        int bytes = startLine.length();
        for (String line = readLine(in, false); !line.isEmpty(); line = readLine(in, false)) {
            bytes += line.length();
            if (bytes > HEAD_BYTES_MAX) {
                throw new IOException("message head longer than " + HEAD_BYTES_MAX + " bytes");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line '" + line + "'");
            }
            headers.add(new String[] {
                line.substring(0, colon).trim(), line.substring(colon + 1).trim()
            });
        }
        return new Head(startLine, headers);
    }

    /** Copies a request's body from {@code in} to {@code out} (a null stream discards it). */
    static void copyRequestBody(Head request, InputStream in, OutputStream out) throws IOException {
        if (request.hasToken("Transfer-Encoding", "chunked")) {
            copyChunked(in, out);
        } else {
            copyExactly(in, out, contentLength(request));
        }
    }

    /**
     * Copies a response's body; returns false if it is delimited by the connection's end, so the
     * connection cannot carry another message.
     */
    static boolean copyResponseBody(String requestMethod, Head response, InputStream in, OutputStream out)
            throws IOException {
        int status = response.status();
        if (requestMethod.equals("HEAD") || status / 100 == 1 || status == 204 || status == 304) {
            return true;
        }
        if (response.hasToken("Transfer-Encoding", "chunked")) {
            copyChunked(in, out);
            return true;
        }
        if (response.header("Content-Length") != null) {
            copyExactly(in, out, contentLength(response));
            return true;
        }
        in.transferTo(out);
        return false;
    }

    private static long contentLength(Head head) throws IOException {
        String value = head.header("Content-Length");
        try {
            return value == null ? 0 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IOException("malformed Content-Length '" + value + "'", e);
        }
    }

    private static void copyChunked(InputStream in, OutputStream out) throws IOException {
        while (true) {
            String sizeLine = readLine(in, false);
            writeLine(out, sizeLine);
            int extension = sizeLine.indexOf(';');
            long size = Long.parseLong((extension < 0 ? sizeLine : sizeLine.substring(0, extension)).trim(), 16);
            if (size == 0) {
                // Trailer fields, then the empty line that ends the message.
                for (String line = readLine(in, false); ; line = readLine(in, false)) {
                    writeLine(out, line);
                    if (line.isEmpty()) {
                        return;
                    }
                }
            }
            copyExactly(in, out, size);
            writeLine(out, readLine(in, false));
        }
    }

    private static void copyExactly(InputStream in, OutputStream out, long count) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = count;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException("stream ended " + left + " bytes before the end of a " + count + "-byte body");
            }
            out.write(buffer, 0, n);
            left -= n;
        }
    }

    /** A line without its CRLF; {@code null} at the end of the stream if {@code endAllowed} and nothing was read. */
    private static String readLine(InputStream in, boolean endAllowed) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (endAllowed && line.size() == 0) {
                    return null;
                }
                throw new EOFException("stream ended inside a line");
            }
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
            }
            if (line.size() >= LINE_BYTES_MAX) {
                throw new IOException("line longer than " + LINE_BYTES_MAX + " bytes");
            }
            line.write(b);
        }
    }

    private static void writeLine(OutputStream out, String line) throws IOException {
        out.write(line.getBytes(StandardCharsets.ISO_8859_1));
        out.write(CRLF);
    }
}
