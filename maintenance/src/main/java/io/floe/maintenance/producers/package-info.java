/**
 * Producer state expiry: the idempotence state (epoch, sequences, last batches) of a producer that has
 * not written to a partition for {@code producer.id.expiration.ms} is forgotten there, as in Kafka, so
 * the store does not keep every short-lived producer forever; likewise a transactional id with no open
 * transaction and no change for {@code transactional.id.expiration.ms}.
 */
package io.floe.maintenance.producers;
