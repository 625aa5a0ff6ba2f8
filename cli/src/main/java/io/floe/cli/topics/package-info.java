/**
 * {@code floe topics create|list|describe|delete}: topic administration over the Kafka protocol,
 * through kafka-clients' public {@code Admin} API, so the commands work against any Floe agent (or
 * any Kafka broker).
 */
package io.floe.cli.topics;
