package io.floe.tableflow.rows;

import io.floe.tableflow.config.TableSettings;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;

/**
 * Turns a record value into column values. Values are plain Java: a {@code Map} for a struct or a
 * map, a {@code List}, and the Java types Iceberg's generic records use for primitives
 * ({@link IcebergValues} fits them to the table's columns).
 */
public sealed interface ValueDecoder permits AvroValueDecoder, JsonValueDecoder, RawValueDecoder {

    /** The value columns, as a struct (field ids are placeholders: the table assigns its own). */
    Types.StructType valueType();

    /**
     * The column values of {@code value} (null for a tombstone) by column name.
     *
     * @throws RowException when the value does not fit the declared schema
     */
    Map<String, Object> decode(ByteBuffer value) throws RowException;

    /**
     * A decoder of record keys that carry the top-level fields {@code columns} of this value schema, all
     * required, in this format: a tombstone of an upsert table keyed by those columns names the row it
     * deletes with its record key.
     */
    ValueDecoder keyDecoder(List<String> columns);

    /** The decoder the settings declare; {@link IllegalArgumentException} when the schema is invalid. */
    static ValueDecoder of(TableSettings settings) {
        return switch (settings.format()) {
            case RAW -> new RawValueDecoder();
            case JSON -> new JsonValueDecoder(settings.schema());
            case AVRO -> new AvroValueDecoder(settings.schema(), settings.confluentFraming());
        };
    }
}
