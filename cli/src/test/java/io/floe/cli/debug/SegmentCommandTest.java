package io.floe.cli.debug;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectKey;
import io.floe.core.segment.SegmentWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SegmentCommandTest {

    private static final UUID TOPIC_ID = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final long TIMESTAMP = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out, true));
        floe.setErr(new PrintWriter(err, true));
        return floe.execute(args);
    }

    /** Two batches: three plain records in partition 0, two idempotent ones in partition 4. */
    private static ByteBuffer segment() {
        ByteBuffer plain = MemoryRecords.withRecords(
                        Compression.NONE, record(TIMESTAMP), record(TIMESTAMP + 1), record(TIMESTAMP + 2))
                .buffer();
        ByteBuffer idempotent = MemoryRecords.withIdempotentRecords(
                        Compression.NONE, 77L, (short) 2, 10, record(TIMESTAMP + 5), record(TIMESTAMP + 9))
                .buffer();
        SegmentWriter writer = new SegmentWriter();
        writer.append(TOPIC_ID, 0, 3, -1L, (short) -1, -1, TIMESTAMP + 2, plain);
        writer.append(TOPIC_ID, 4, 2, 77L, (short) 2, 10, TIMESTAMP + 9, idempotent);
        return writer.finish();
    }

    private static SimpleRecord record(long timestamp) {
        return new SimpleRecord(
                timestamp,
                "key".getBytes(StandardCharsets.UTF_8),
                ("value-" + timestamp).getBytes(StandardCharsets.UTF_8));
    }

    private Path write(String name, ByteBuffer content) throws IOException {
        byte[] bytes = new byte[content.remaining()];
        content.duplicate().get(bytes);
        return Files.write(dir.resolve(name), bytes);
    }

    @Test
    void printsTheFooterAndEveryBatchOfAGoodSegment() throws IOException {
        ByteBuffer segment = segment();
        Path file = write("good.seg", segment);

        assertThat(run("debug", "segment", file.toString())).isZero();

        assertThat(out.toString().lines()).hasSize(3);
        assertThat(out.toString().lines().findFirst())
                .contains("segment " + file + " bytes=" + segment.remaining() + " version=1 batches=2");
        assertThat(out.toString())
                .contains("batch 0 topic-id=" + TOPIC_ID + " partition=0 range=[5,")
                .contains(" records=3 producer-id=-1 producer-epoch=-1 base-sequence=-1 max-timestamp="
                        + (TIMESTAMP + 2) + " (2023-11-14T22:13:20.002Z) crc=ok")
                .contains("batch 1 topic-id=" + TOPIC_ID + " partition=4")
                .contains(
                        " records=2 producer-id=77 producer-epoch=2 base-sequence=10 max-timestamp=" + (TIMESTAMP + 9));
        assertThat(out.toString()).doesNotContain("crc=BAD");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void aDamagedBatchIsReportedAndFailsTheCheck() throws IOException {
        ByteBuffer segment = segment();
        int lastByteOfFirstBatch = 5
                + MemoryRecords.withRecords(
                                Compression.NONE, record(TIMESTAMP), record(TIMESTAMP + 1), record(TIMESTAMP + 2))
                        .sizeInBytes()
                - 1;
        segment.put(lastByteOfFirstBatch, (byte) (segment.get(lastByteOfFirstBatch) ^ 0x01));
        Path file = write("damaged.seg", segment);

        assertThat(run("debug", "segment", file.toString())).isEqualTo(1);

        assertThat(out.toString()).contains("batch 0 ").contains("partition=0").contains("crc=BAD");
        assertThat(out.toString()
                        .lines()
                        .filter(line -> line.startsWith("batch 1 "))
                        .findFirst())
                .hasValueSatisfying(line -> assertThat(line).endsWith("crc=ok"));
        assertThat(err.toString())
                .isEqualTo("floe debug segment: 1 of 2 batches in " + file + " fail their CRC check"
                        + System.lineSeparator());
    }

    @Test
    void aDamagedFooterIsNotASegment() throws IOException {
        ByteBuffer segment = segment();
        int inFooter = segment.remaining() - 20;
        segment.put(inFooter, (byte) (segment.get(inFooter) ^ 0x40));
        Path file = write("bad-footer.seg", segment);

        assertThat(run("debug", "segment", file.toString())).isEqualTo(1);

        assertThat(err.toString())
                .startsWith(
                        "floe debug segment: not a valid Floe segment: " + file + " footer CRC32C mismatch: stored 0x")
                .hasLineCount(1);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aFileThatIsNoSegmentSaysSo() throws IOException {
        Path file = Files.writeString(dir.resolve("notes.txt"), "these are not the bytes you are looking for\n");

        assertThat(run("debug", "segment", file.toString())).isEqualTo(1);

        assertThat(err.toString())
                .isEqualTo("floe debug segment: not a valid Floe segment: " + file + " has"
                        + " no FLOE magic in its header at 0: found bytes 0x74686573" + System.lineSeparator());
    }

    @Test
    void aTinyFileIsNoSegment() throws IOException {
        Path file = Files.writeString(dir.resolve("tiny"), "FLOE");

        assertThat(run("debug", "segment", file.toString())).isEqualTo(1);

        assertThat(err.toString()).contains("not a valid Floe segment: " + file + " has 4 bytes, fewer than");
    }

    @Test
    void aMissingFileOrADirectoryFailsWithOneLine() {
        assertThat(run("debug", "segment", dir.resolve("nope.seg").toString())).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo("floe debug segment: no file " + dir.resolve("nope.seg") + System.lineSeparator());

        err.getBuffer().setLength(0);
        assertThat(run("debug", "segment", dir.toString())).isEqualTo(1);
        assertThat(err.toString()).contains(dir + " is a directory, not a segment file");
    }

    @Test
    void readsAnObjectFromAnObjectStore() {
        ObjectKey key = new ObjectKey("segments/0a/agent-0-1-000001.seg");
        try (LocalObjectStore store = new LocalObjectStore(dir.resolve("objects"))) {
            store.put(key, segment());
        }

        assertThat(run("debug", "segment", "--objects", "file:" + dir.resolve("objects"), key.value()))
                .isZero();

        assertThat(out.toString()).startsWith("segment " + key + " in file:").contains("version=1 batches=2");
    }

    @Test
    void aMissingObjectOrStoreFailsWithOneLine() {
        assertThat(run("debug", "segment", "--objects", "file:" + dir.resolve("none"), "segments/x.seg"))
                .isEqualTo(1);
        assertThat(err.toString()).contains("no object store at " + dir.resolve("none"));

        err.getBuffer().setLength(0);
        new LocalObjectStore(dir.resolve("objects")).close();
        assertThat(run("debug", "segment", "--objects", "file:" + dir.resolve("objects"), "segments/x.seg"))
                .isEqualTo(1);
        assertThat(err.toString())
                .startsWith("floe debug segment: no object segments/x.seg in file:")
                .hasLineCount(1);
    }

    @Test
    void badUsageExitsWithTwo() {
        assertThat(run("debug", "segment", "--objects", "ftp://host/x", "segments/x.seg"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("unknown object store scheme 'ftp'");

        err.getBuffer().setLength(0);
        assertThat(run("debug", "segment", "--objects", "file:" + dir, "/absolute"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("invalid object key '/absolute'");

        err.getBuffer().setLength(0);
        assertThat(run("debug", "segment", "--objects", "s3://floe-data", "--s3-access-key-id", "id", "k"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--s3-access-key-id is set but --s3-secret-access-key is not");

        err.getBuffer().setLength(0);
        assertThat(run("debug", "segment", "--objects", "ftp://host/x", "--s3-path-style", "segments/x.seg"))
                .isEqualTo(2);
        assertThat(err.toString())
                .as("a bare boolean flag leaves the key to the parameter")
                .contains("unknown object store scheme 'ftp'");

        assertThat(run("debug")).isEqualTo(2);
        assertThat(run("debug", "segment")).isEqualTo(2);
    }
}
