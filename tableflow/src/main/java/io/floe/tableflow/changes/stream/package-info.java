/**
 * Change topics: each table that names one ({@code floe.tableflow.changes.topic}) has its changes
 * published there after each of its commits, in Debezium's envelope, by the agent that holds the table's
 * lease. A transactional producer writes one commit range's changes and moves the stream's progress (the
 * source offsets published, kept as the offsets of a consumer group) in the same Kafka transaction, so
 * consumers reading with {@code isolation.level=read_committed} see each change exactly once, and a new
 * lease holder fences the old one's producer. {@link io.floe.tableflow.changes.stream.ChangeStreams} is
 * the agent's set of streams.
 */
package io.floe.tableflow.changes.stream;
