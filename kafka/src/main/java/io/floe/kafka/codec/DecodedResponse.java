package io.floe.kafka.codec;

import org.apache.kafka.common.protocol.ApiMessage;

/** A response frame as a client reads it: the correlation id and the body. */
public record DecodedResponse(int correlationId, ApiMessage body) {}
