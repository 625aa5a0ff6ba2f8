/**
 * Change topics: each table that names one ({@code floe.tableflow.changes.topic}) has its changes
 * published there, in Debezium's envelope, by the agent that holds the table's lease. A transactional
 * producer writes one range's changes and moves the stream's progress (the source offsets published,
 * kept as the offsets of a consumer group that never expire while the stream exists, and carried by the
 * last record of each partition the transaction writes) in the same Kafka transaction, so consumers
 * reading with {@code isolation.level=read_committed} see each change exactly once, and a new lease
 * holder fences the old one's producer. An upsert table's stream holds the source topic's log at what
 * it has still to replay. {@link io.floe.tableflow.changes.stream.ChangeStreams} is the agent's set of
 * streams; {@code StreamLink} is all they need of Kafka.
 */
package io.floe.tableflow.changes.stream;
