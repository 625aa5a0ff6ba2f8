package io.floe.tableflow.rows;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;

/** The value bytes in one binary column, {@code value}; every record fits. */
public final class RawValueDecoder implements ValueDecoder {

    public static final String COLUMN = "value";

    @Override
    public Types.StructType valueType() {
        return Types.StructType.of(Types.NestedField.optional(1, COLUMN, Types.BinaryType.get()));
    }

    @Override
    public Map<String, Object> decode(ByteBuffer value) {
        Map<String, Object> columns = new HashMap<>(2);
        columns.put(COLUMN, value == null ? null : copy(value));
        return columns;
    }

    /** Raw values have no fields to key by: {@code TableSettings} refuses key columns for them. */
    @Override
    public ValueDecoder keyDecoder(List<String> columns) {
        throw new IllegalStateException("raw values have no fields; key columns " + columns + " cannot be read");
    }

    public static ByteBuffer copy(ByteBuffer buffer) {
        ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
        copy.put(buffer.duplicate()).flip();
        return copy;
    }
}
