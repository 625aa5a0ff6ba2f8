/**
 * Kafka record batches as Floe handles them: validation of what producers send, and access to the
 * stored bytes, through kafka-clients' record classes (never re-encoded).
 */
package io.floe.agent.batch;
