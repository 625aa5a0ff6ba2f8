/**
 * Floe's Kafka wire-protocol front end: {@link io.floe.kafka.KafkaServer} listens on a socket,
 * decodes Kafka requests, hands them to one small handler per API, and writes the answers back in
 * request order. The only module that imports kafka-clients' internal message classes.
 */
package io.floe.kafka;
