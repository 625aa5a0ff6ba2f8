/**
 * Translation of Floe's exceptions into Kafka's error codes: the one place that decides which Kafka
 * error a client sees for each failure of the agent or its stores.
 */
package io.floe.kafka.error;
