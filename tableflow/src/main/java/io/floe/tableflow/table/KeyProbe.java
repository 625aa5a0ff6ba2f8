package io.floe.tableflow.table;

import io.floe.tableflow.rows.UpsertKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UUIDUtil;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * A round's keys, prepared to ask a data file whether it may hold one of them: each key's column
 * values, the keys sorted by their first column, and each value's Parquet Bloom filter hash, computed
 * once a lookup. A key may be in a file only if every one of its column values is within that column's
 * bounds in the file's manifest entry ({@link #withinBounds}), and in a row group only if every key
 * column's Bloom filter there may hold its value ({@link KeyBloomFilters}): for one column (the record
 * key, or one key column) that is the column's own bounds and filter; for several, each column rules
 * out what it can, so a key whose values are each common but never together is not ruled out.
 */
final class KeyProbe {

    private static final BloomFilter HASHER = new BlockSplitBloomFilter(BlockSplitBloomFilter.LOWER_BOUND_BYTES);

    private final UpsertKey key;
    /** values[k][c]: column c of key k, in Iceberg's internal representation. */
    private final Object[][] values;
    /** hashes[c][k]: the Bloom filter hash of column c of key k; null for a column not probed. */
    private final long[][] hashes;

    private final List<Comparator<Object>> order = new ArrayList<>();

    KeyProbe(UpsertKey key, Collection<ByteBuffer> roundKeys) {
        this.key = key;
        List<Types.NestedField> columns = key.columns();
        for (Types.NestedField column : columns) {
            order.add(comparator(column.type()));
        }
        List<Object[]> rows = new ArrayList<>(roundKeys.size());
        for (ByteBuffer roundKey : roundKeys) {
            rows.add(key.values(roundKey));
        }
        rows.sort((a, b) -> order.get(0).compare(a[0], b[0]));
        this.values = rows.toArray(Object[][]::new);
        this.hashes = new long[columns.size()][];
        for (int c = 0; c < columns.size(); c++) {
            Type type = columns.get(c).type();
            if (probes(type)) {
                hashes[c] = new long[values.length];
                for (int k = 0; k < values.length; k++) {
                    hashes[c][k] = hash(type, values[k][c]);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Comparator<Object> comparator(Type type) {
        return (Comparator<Object>) (Comparator<?>) Comparators.forType(type.asPrimitiveType());
    }

    /** Whether a lookup asks a Bloom filter of a column of this type (and so whether its files get one). */
    static boolean probes(Type type) {
        return physicalType(type) != null;
    }

    /** The Parquet type Iceberg writes a column of {@code type} as, for the ones probed; null otherwise. */
    static PrimitiveTypeName physicalType(Type type) {
        return switch (type.typeId()) {
            case INTEGER, DATE -> PrimitiveTypeName.INT32;
            case LONG, TIME, TIMESTAMP, TIMESTAMP_NANO -> PrimitiveTypeName.INT64;
            case STRING, BINARY -> PrimitiveTypeName.BINARY;
            case FIXED, UUID -> PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
            default -> null; // boolean has no Bloom filter; decimals are written as one of three types
        };
    }

    private static long hash(Type type, Object value) {
        return switch (physicalType(type)) {
            case INT32 -> HASHER.hash((int) (Integer) value);
            case INT64 -> HASHER.hash((long) (Long) value);
            case BINARY ->
                HASHER.hash(
                        value instanceof CharSequence text
                                ? Binary.fromString(text.toString())
                                : Binary.fromConstantByteBuffer(((ByteBuffer) value).duplicate()));
            case FIXED_LEN_BYTE_ARRAY ->
                HASHER.hash(
                        value instanceof UUID uuid
                                ? Binary.fromConstantByteArray(UUIDUtil.convert(uuid))
                                : Binary.fromConstantByteBuffer(((ByteBuffer) value).duplicate()));
            default -> throw new IllegalStateException("no Bloom filter hash for " + type);
        };
    }

    /** The Parquet type key column {@code column}'s values are hashed as; null when it is not probed. */
    PrimitiveTypeName physicalType(int column) {
        return physicalType(key.columns().get(column).type());
    }

    /** The names of the key's columns (whose statistics a lookup plans with). */
    List<String> columnNames() {
        return key.names();
    }

    /** The Iceberg field id of key column {@code column}. */
    int fieldId(int column) {
        return key.columns().get(column).fieldId();
    }

    int columns() {
        return key.columns().size();
    }

    /** Column {@code c}'s hashes, one a key in {@link #withinBounds} order; null when it is not probed. */
    long[] hashes(int column) {
        return hashes[column];
    }

    /**
     * The keys (their indexes, ascending) whose every column value lies within that column's bounds in
     * {@code file}'s manifest entry. Iceberg's bounds of a string or binary column may be truncated, a
     * lower bound to a prefix and an upper bound to a prefix rounded up, so they still bound every value
     * in the file; a missing bound bounds nothing.
     */
    int[] withinBounds(DataFile file) {
        Object lower = bound(file.lowerBounds(), 0);
        Object upper = bound(file.upperBounds(), 0);
        int from = lower == null ? 0 : firstFrom(lower, false);
        int to = upper == null ? values.length : firstFrom(upper, true);
        if (from >= to) {
            return new int[0];
        }
        if (columns() == 1) {
            return IntStream.range(from, to).toArray();
        }
        Object[] lowers = new Object[columns()];
        Object[] uppers = new Object[columns()];
        for (int c = 1; c < columns(); c++) {
            lowers[c] = bound(file.lowerBounds(), c);
            uppers[c] = bound(file.upperBounds(), c);
        }
        return IntStream.range(from, to).filter(k -> within(k, lowers, uppers)).toArray();
    }

    private boolean within(int k, Object[] lowers, Object[] uppers) {
        for (int c = 1; c < columns(); c++) {
            Comparator<Object> columnOrder = order.get(c);
            if ((lowers[c] != null && columnOrder.compare(values[k][c], lowers[c]) < 0)
                    || (uppers[c] != null && columnOrder.compare(values[k][c], uppers[c]) > 0)) {
                return false;
            }
        }
        return true;
    }

    /** Key column {@code column}'s bound among a file's {@code bounds}; null when it has none. */
    private Object bound(Map<Integer, ByteBuffer> bounds, int column) {
        ByteBuffer serialized = bounds == null ? null : bounds.get(fieldId(column));
        return serialized == null
                ? null
                : Conversions.fromByteBuffer(key.columns().get(column).type(), serialized);
    }

    /**
     * The index of the first key whose first column is at least {@code bound}, or, with {@code skipEqual},
     * above it (the keys are sorted by their first column).
     */
    private int firstFrom(Object bound, boolean skipEqual) {
        int low = 0;
        int high = values.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            int compared = order.get(0).compare(values[middle][0], bound);
            if (compared < 0 || (skipEqual && compared == 0)) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}
