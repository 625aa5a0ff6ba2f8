/**
 * The Netty side of the Kafka listener: size-prefixed frames in, requests dispatched in order on each
 * connection's event loop, responses written in request order, with a bound on requests in flight
 * per connection and a bounded, draining shutdown. Bad input costs at most its own connection.
 */
package io.floe.kafka.network;
