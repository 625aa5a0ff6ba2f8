/**
 * The Kafka wire format without I/O: request frames to header and request message, response
 * messages to frames, and the error answers for frames that cannot be served. Everything here is a
 * pure function of its arguments, so every supported API version is tested by round trips.
 */
package io.floe.kafka.codec;
