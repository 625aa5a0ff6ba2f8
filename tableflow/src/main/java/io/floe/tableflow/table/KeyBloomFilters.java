package io.floe.tableflow.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.BloomFilterReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.Type;

/**
 * The Parquet Bloom filters of the key columns of a data file, asked whether any of a round's keys may be
 * in it: a file is read only when one of its row groups may hold one, i.e. every key column's filter
 * there may hold that key's value. Iceberg's reader can skip row groups by an {@code in} filter too, but
 * it binds the filter's keys three times for each file it opens and hashes them again for each row group,
 * which for thousands of keys cost about as much as the reads it saved; here each key is hashed once a
 * lookup ({@link KeyProbe}; every Parquet Bloom filter hashes with XXH64).
 */
final class KeyBloomFilters {

    /** Plain options: the default ones build a Hadoop configuration (parsing its XML) for every file. */
    private static final ParquetReadOptions OPTIONS =
            ParquetReadOptions.builder(new PlainParquetConfiguration()).build();

    private KeyBloomFilters() {}

    /**
     * Whether a row group of {@code file} may hold one of the {@code candidates} of {@code probe} (indexes
     * into its keys): true for a row group without a usable Bloom filter on any key column (a file written
     * before upsert tables had them, or by another writer).
     */
    static boolean mayHoldAny(org.apache.iceberg.io.InputFile file, KeyProbe probe, int[] candidates) {
        try (ParquetFileReader reader = ParquetFileReader.open(parquetFile(file), OPTIONS)) {
            for (BlockMetaData rowGroup : reader.getRowGroups()) {
                if (mayHoldAny(reader, rowGroup, probe, candidates)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Bloom filters of " + file.location(), e);
        }
    }

    private static boolean mayHoldAny(
            ParquetFileReader reader, BlockMetaData rowGroup, KeyProbe probe, int[] candidates) {
        BloomFilter[] filters = filters(reader, rowGroup, probe);
        if (filters == null) {
            return true;
        }
        for (int key : candidates) {
            if (mayHold(filters, probe, key)) {
                return true;
            }
        }
        return false;
    }

    private static boolean mayHold(BloomFilter[] filters, KeyProbe probe, int key) {
        for (int column = 0; column < filters.length; column++) {
            if (filters[column] != null && !filters[column].findHash(probe.hashes(column)[key])) {
                return false;
            }
        }
        return true;
    }

    /** The row group's usable Bloom filter of each key column (null where none); null when it has none at all. */
    private static BloomFilter[] filters(ParquetFileReader reader, BlockMetaData rowGroup, KeyProbe probe) {
        BloomFilter[] filters = new BloomFilter[probe.columns()];
        boolean any = false;
        BloomFilterReader bloomFilters = null;
        for (int column = 0; column < filters.length; column++) {
            if (probe.hashes(column) == null) {
                continue;
            }
            ColumnChunkMetaData chunk = keyColumn(rowGroup, probe.fieldId(column));
            if (chunk == null
                    || chunk.getBloomFilterOffset() < 0
                    || chunk.getPrimitiveType().getPrimitiveTypeName() != probe.physicalType(column)) {
                continue; // no filter, or one of values written otherwise than a lookup hashes them
            }
            if (bloomFilters == null) {
                bloomFilters = reader.getBloomFilterDataReader(rowGroup);
            }
            BloomFilter filter = bloomFilters.readBloomFilter(chunk);
            if (filter != null && filter.getHashStrategy() == BloomFilter.HashStrategy.XXH64) {
                filters[column] = filter;
                any = true;
            }
        }
        return any ? filters : null;
    }

    /** The key column's chunk, found by its Iceberg field id; null when the file has none. */
    private static ColumnChunkMetaData keyColumn(BlockMetaData rowGroup, int keyFieldId) {
        for (ColumnChunkMetaData column : rowGroup.getColumns()) {
            Type.ID id = column.getPrimitiveType().getId();
            if (id != null && id.intValue() == keyFieldId) {
                return column;
            }
        }
        return null;
    }

    /** Parquet's view of an Iceberg input file (Iceberg's own adapter is not public). */
    private static InputFile parquetFile(org.apache.iceberg.io.InputFile file) {
        return new InputFile() {
            @Override
            public long getLength() {
                return file.getLength();
            }

            @Override
            public SeekableInputStream newStream() {
                org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
                return new DelegatingSeekableInputStream(stream) {
                    @Override
                    public long getPos() throws IOException {
                        return stream.getPos();
                    }

                    @Override
                    public void seek(long newPos) throws IOException {
                        stream.seek(newPos);
                    }
                };
            }
        };
    }
}
