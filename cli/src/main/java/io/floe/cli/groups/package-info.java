/**
 * {@code floe groups list|describe|reset-offsets|delete}: consumer group administration over the
 * Kafka protocol, through kafka-clients' public {@code Admin} API, with the output and the reset
 * options of Kafka's {@code kafka-consumer-groups} tool, so the commands work against any Floe agent
 * (or any Kafka broker).
 */
package io.floe.cli.groups;
