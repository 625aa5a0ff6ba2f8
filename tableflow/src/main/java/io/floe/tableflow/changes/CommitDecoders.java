package io.floe.tableflow.changes;

import io.floe.core.record.StoredRecord;
import io.floe.tableflow.changes.ChangeQueryException.Reason;
import io.floe.tableflow.rows.RowException;
import io.floe.tableflow.rows.UpsertRecords;
import io.floe.tableflow.rows.ValueDecoder;
import io.floe.tableflow.table.RecordDecoding;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each record of a replayed upsert table did, decided as the round that applied it decided: with
 * the settings its commit recorded ({@link RecordDecoding}), so the replay refuses exactly the records the
 * round refused and rebuilds exactly the rows it wrote, whatever the topic's settings are now.
 *
 * <p>A commit that recorded none (made before commits recorded them, or whose settings the table no
 * longer keeps) is replayed with the topic's current settings against the dead-letter table, which holds
 * every record a round refused below the table's watermark: a record it holds changes nothing, and one it
 * does not hold that today's settings refuse was applied under settings no longer known, so its row
 * cannot be rebuilt and the query is refused (410) rather than answered without it.
 */
final class CommitDecoders {

    private static final Logger LOGGER = LoggerFactory.getLogger(CommitDecoders.class);

    /** The rule of one commit's records. */
    interface Records {
        /** The change {@code record} of {@code partition} made; null for a dead letter. */
        UpsertRecords.Change change(int partition, StoredRecord record);

        /** The key {@code record} changes (possibly one of a dead letter: more keys only cost a lookup); null: none. */
        ByteBuffer keyOf(int partition, StoredRecord record);
    }

    private final Table table;
    private final String tableName;
    private final Schema schema;
    private final Supplier<ValueDecoder> currentDecoder;
    private final DeadLetterOffsets deadLetters;
    private final Map<String, UpsertRecords> recorded = new HashMap<>();
    private UpsertRecords current;

    /**
     * The rules of {@code table}'s commits, its rows in the table's current {@code schema}; {@code
     * currentDecoder} gives the topic's decoder now (failing with a {@link ChangeQueryException}),
     * asked only for a commit that recorded none.
     */
    CommitDecoders(
            Table table,
            String tableName,
            Schema schema,
            Supplier<ValueDecoder> currentDecoder,
            DeadLetterOffsets deadLetters) {
        this.table = table;
        this.tableName = tableName;
        this.schema = schema;
        this.currentDecoder = currentDecoder;
        this.deadLetters = deadLetters;
    }

    /** The rule of the records {@code segment} replays. */
    Records of(Segments.Segment segment) {
        Optional<RecordDecoding> decoding = Optional.ofNullable(segment.commit())
                .map(commit -> table.snapshot(commit.snapshotId()))
                .flatMap(snapshot -> RecordDecoding.of(table, snapshot));
        if (decoding.isPresent()) {
            return recorded(decoding.get());
        }
        return unrecorded(segment);
    }

    /**
     * Rows decoded with the commit's settings into the table's current schema: a value that fitted the
     * table then fits it now, as a table's columns only gain fields and widen, and reads as its row does
     * (the fields added since are null).
     */
    private Records recorded(RecordDecoding decoding) {
        UpsertRecords records = recorded.computeIfAbsent(decoding.fingerprint(), fingerprint -> {
            try {
                return new UpsertRecords(schema, decoding.decoder());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(
                        "table " + tableName + " recorded decoding settings " + fingerprint + " that are invalid: "
                                + e.getMessage(),
                        e);
            }
        });
        return new Records() {
            @Override
            public UpsertRecords.Change change(int partition, StoredRecord record) {
                try {
                    return records.change(partition, record);
                } catch (RowException deadLetter) {
                    return null;
                }
            }

            @Override
            public ByteBuffer keyOf(int partition, StoredRecord record) {
                return records.keyOf(partition, record);
            }
        };
    }

    private Records unrecorded(Segments.Segment segment) {
        if (current == null) {
            current = new UpsertRecords(schema, currentDecoder.get());
            LOGGER.info(
                    "change query replays commits that recorded no decoding settings with the topic's current"
                            + " ones and the dead-letter table table={} first={}",
                    tableName,
                    segment.commit());
        }
        UpsertRecords records = current;
        Set<Long> refused = deadLetters.of(segment);
        return new Records() {
            @Override
            public UpsertRecords.Change change(int partition, StoredRecord record) {
                if (refused.contains(record.offset())) {
                    return null;
                }
                try {
                    return records.change(partition, record);
                } catch (RowException e) {
                    throw unrebuildable(segment, record, e);
                }
            }

            @Override
            public ByteBuffer keyOf(int partition, StoredRecord record) {
                return refused.contains(record.offset()) ? null : records.keyOf(partition, record);
            }
        };
    }

    private ChangeQueryException unrebuildable(Segments.Segment segment, StoredRecord record, RowException e) {
        String commit = segment.commit() == null
                ? "an expired commit"
                : "snapshot " + segment.commit().snapshotId();
        return new ChangeQueryException(
                Reason.GONE,
                "table " + tableName + " applied offset " + record.offset() + " of partition " + segment.partition()
                        + " in " + commit + ", which recorded no decoding settings (made before Floe recorded them),"
                        + " and the topic's settings now refuse it (" + e.getMessage() + "): its row cannot be"
                        + " rebuilt; query from " + commit + " or later");
    }
}
