package io.floe.kafka.network;

import java.nio.ByteBuffer;

/** What the frame decoder found on the wire. */
sealed interface InboundFrame {

    /** A whole request frame (without its size prefix) in its own heap buffer, never reused. */
    record Request(ByteBuffer frame) implements InboundFrame {}

    /** A frame above the size limit: its first bytes, enough to read the header, and its declared size. */
    record Oversized(ByteBuffer head, int size) implements InboundFrame {}

    /** A negative size prefix: nothing after it can be framed. */
    record Invalid(int size) implements InboundFrame {}
}
