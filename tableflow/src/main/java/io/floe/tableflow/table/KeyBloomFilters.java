package io.floe.tableflow.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.BloomFilterReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.Type;

/**
 * The Parquet Bloom filters of the key column of a data file, asked whether any of a round's keys may be
 * in it: a file is read only when one of its row groups may hold one. Iceberg's reader can skip row
 * groups by an {@code in} filter too, but it binds the filter's keys three times for each file it opens
 * and hashes them again for each row group, which for thousands of keys cost about as much as the reads
 * it saved; here each key is hashed once a lookup (every Parquet Bloom filter hashes with XXH64).
 */
final class KeyBloomFilters {

    private static final BloomFilter HASHER = new BlockSplitBloomFilter(BlockSplitBloomFilter.LOWER_BOUND_BYTES);
    /** Plain options: the default ones build a Hadoop configuration (parsing its XML) for every file. */
    private static final ParquetReadOptions OPTIONS =
            ParquetReadOptions.builder(new PlainParquetConfiguration()).build();

    private KeyBloomFilters() {}

    /** The Bloom filter hashes of {@code keys}, in their order. */
    static long[] hashes(List<ByteBuffer> keys) {
        return keys.stream()
                .mapToLong(key -> HASHER.hash(Binary.fromConstantByteBuffer(key.duplicate())))
                .toArray();
    }

    /**
     * Whether a row group of {@code file} may hold one of the keys whose {@link #hashes} are
     * {@code hashes[from, to)}: true for a row group whose key column has no Bloom filter (a file written
     * before upsert tables had them, or by another writer).
     */
    static boolean mayHoldAny(org.apache.iceberg.io.InputFile file, int keyFieldId, long[] hashes, int from, int to) {
        try (ParquetFileReader reader = ParquetFileReader.open(parquetFile(file), OPTIONS)) {
            for (BlockMetaData rowGroup : reader.getRowGroups()) {
                if (mayHoldAny(reader, rowGroup, keyFieldId, hashes, from, to)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Bloom filters of " + file.location(), e);
        }
    }

    private static boolean mayHoldAny(
            ParquetFileReader reader, BlockMetaData rowGroup, int keyFieldId, long[] hashes, int from, int to) {
        ColumnChunkMetaData keys = keyColumn(rowGroup, keyFieldId);
        if (keys == null) {
            return true; // not a file Tableflow wrote: read it
        }
        BloomFilterReader filters = reader.getBloomFilterDataReader(rowGroup);
        BloomFilter filter = keys.getBloomFilterOffset() < 0 ? null : filters.readBloomFilter(keys);
        if (filter == null || filter.getHashStrategy() != BloomFilter.HashStrategy.XXH64) {
            return true;
        }
        for (int i = from; i < to; i++) {
            if (filter.findHash(hashes[i])) {
                return true;
            }
        }
        return false;
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
