/**
 * The segment object format: one flush of one agent becomes one immutable object holding the Kafka
 * record batches of many partitions, exactly as producers sent them, followed by a footer that
 * describes each batch. The footer makes an object self-describing, so the orphan sweep, compaction
 * and debugging tools can read it without the metadata store.
 *
 * <p>Layout, big-endian like Kafka:
 * <pre>
 * header : "FLOE" u8 version (= 1)
 * batches: the record-batch bytes, concatenated in append order
 * footer : i32 entry count, then per entry:
 *          topicId msb i64, topicId lsb i64, partition i32, position i64, length i32, recordCount i32,
 *          producerId i64, producerEpoch i16, baseSequence i32, maxTimestamp i64
 * trailer: i32 footer length, i32 CRC32C of the footer, "FLOE"
 * </pre>
 * {@link io.floe.core.segment.SegmentWriter} builds an object, {@link io.floe.core.segment.SegmentReader}
 * verifies and decodes its footer. Batch contents are checked by their own Kafka CRC, not here.
 */
package io.floe.core.segment;
