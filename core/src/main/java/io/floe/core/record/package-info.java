/**
 * Kafka record batches as Floe stores and reads them: the one view of the v2 batch bytes producers
 * send, read through kafka-clients' record classes and never re-encoded. Outside {@code core} only the
 * Kafka protocol layer looks at kafka-clients' record internals; everything else goes through here.
 */
package io.floe.core.record;
