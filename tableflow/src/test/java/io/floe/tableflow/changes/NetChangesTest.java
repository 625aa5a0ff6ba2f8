package io.floe.tableflow.changes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class NetChangesTest {

    private static final Schema ROW = new Schema(Types.NestedField.optional(1, "v", Types.StringType.get()));
    private static final Commit COMMIT = new Commit(1, Instant.EPOCH);

    @Test
    void keepsTheRowBeforeTheFirstChangeAndAfterTheLast() throws IOException {
        NetChanges net = new NetChanges();
        long offset = 0;
        // a: inserted, updated twice -> one insert of the last row
        net.accept(change("a", null, "a1", offset++));
        net.accept(change("a", "a1", "a2", offset++));
        // b: updated twice -> one update from the first before to the last after
        net.accept(change("b", "b0", "b1", offset++));
        net.accept(change("a", "a2", "a3", offset++));
        net.accept(change("b", "b1", "b2", offset++));
        // c: inserted then deleted -> nothing
        net.accept(change("c", null, "c1", offset++));
        net.accept(change("c", "c1", null, offset++));
        // d: deleted then inserted again -> an update
        net.accept(change("d", "d0", null, offset++));
        net.accept(change("d", null, "d1", offset++));
        // e: deleted
        net.accept(change("e", "e0", null, offset++));
        List<String> out = new ArrayList<>();
        long count = net.finish(change -> out.add(change.op().code() + " " + value(change.before()) + " "
                + value(change.after()) + " @" + change.offset()));
        assertThat(out).containsExactly("c - a3 @3", "u b0 b2 @4", "u d0 d1 @8", "d e0 - @9");
        assertThat(count).isEqualTo(4);
    }

    private static Change change(String key, String before, String after, long offset) {
        Op op = before == null ? Op.INSERT : after == null ? Op.DELETE : Op.UPDATE;
        return new Change(
                op,
                ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)),
                row(before),
                row(after),
                0,
                offset,
                offset,
                COMMIT);
    }

    private static Record row(String value) {
        if (value == null) {
            return null;
        }
        GenericRecord row = GenericRecord.create(ROW);
        row.setField("v", value);
        return row;
    }

    private static String value(Record row) {
        return row == null ? "-" : (String) row.getField("v");
    }
}
