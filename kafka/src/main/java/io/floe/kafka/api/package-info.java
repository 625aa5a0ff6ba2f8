/**
 * One small class per Kafka API, each translating its request into calls on the agent and the
 * agent's answers back into the API's response, plus the registry the network layer dispatches by.
 * Kafka error codes are chosen here and in {@code io.floe.kafka.error}, nowhere else in Floe.
 */
package io.floe.kafka.api;
