package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.rows.UpsertKey;
import java.nio.ByteBuffer;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Which of a round's keys a data file's column bounds leave in: the first pruning of a key lookup. */
class KeyProbeTest {

    private static final Types.NestedField ID = Types.NestedField.required(1, "id", Types.LongType.get());
    private static final Types.NestedField REGION = Types.NestedField.required(2, "region", Types.StringType.get());
    private static final Schema SCHEMA = new Schema(ID, REGION);

    @Test
    void keysWithinTheBoundsOfTheFirstColumnAreLeftInBothBoundsIncluded() {
        UpsertKey key = new UpsertKey(List.of(ID));
        // sorted by id: 1, 3, 5, 7, 9 are keys 0 to 4
        KeyProbe probe = new KeyProbe(key, keys(9, 3, 5, 7, 1));

        assertThat(probe.withinBounds(idsFrom(3, 7))).containsExactly(1, 2, 3);
        assertThat(probe.withinBounds(idsFrom(4, 6))).containsExactly(2);
        assertThat(probe.withinBounds(idsFrom(1, 1))).containsExactly(0);
        assertThat(probe.withinBounds(idsFrom(9, 9))).containsExactly(4);
        assertThat(probe.withinBounds(idsFrom(10, 20))).isEmpty();
        assertThat(probe.withinBounds(idsFrom(-5, 0))).isEmpty();
        assertThat(probe.withinBounds(file(Map.of(), Map.of()))).containsExactly(0, 1, 2, 3, 4);
        assertThat(probe.withinBounds(file(Map.of(1, bound(ID, 6L)), Map.of()))).containsExactly(3, 4);
    }

    @Test
    void everyColumnOfASeveralColumnKeyMustBeWithinItsBounds() {
        UpsertKey key = new UpsertKey(List.of(ID, REGION));
        KeyProbe probe = new KeyProbe(key, List.of(key(key, 3, "eu"), key(key, 1, "eu"), key(key, 2, "us")));

        DataFile euOnly = file(
                Map.of(1, bound(ID, 1L), 2, bound(REGION, "eu")), Map.of(1, bound(ID, 3L), 2, bound(REGION, "eu")));
        assertThat(probe.withinBounds(euOnly)).containsExactly(0, 2);
        DataFile usFrom2 = file(Map.of(1, bound(ID, 2L), 2, bound(REGION, "us")), Map.of(2, bound(REGION, "zz")));
        assertThat(probe.withinBounds(usFrom2)).containsExactly(1);
    }

    private static DataFile idsFrom(long lower, long upper) {
        return file(Map.of(1, bound(ID, lower)), Map.of(1, bound(ID, upper)));
    }

    private static Set<ByteBuffer> keys(long... ids) {
        Set<ByteBuffer> keys = new LinkedHashSet<>();
        for (long id : ids) {
            keys.add(Conversions.toByteBuffer(ID.type(), id));
        }
        return keys;
    }

    private static ByteBuffer key(UpsertKey key, long id, String region) {
        GenericRecord row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("region", region);
        return key.of(row);
    }

    private static ByteBuffer bound(Types.NestedField column, Object value) {
        return Conversions.toByteBuffer(column.type(), value);
    }

    private static DataFile file(Map<Integer, ByteBuffer> lower, Map<Integer, ByteBuffer> upper) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath("/data/file.parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withMetrics(new Metrics(5L, null, null, null, null, lower, upper))
                .build();
    }
}
