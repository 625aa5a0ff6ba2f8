package io.floe.cli.debug;

import io.floe.cli.agent.Backends;
import io.floe.cli.agent.S3Flags;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.core.record.StoredBatch;
import io.floe.core.segment.SegmentBatch;
import io.floe.core.segment.SegmentFooter;
import io.floe.core.segment.SegmentFormatException;
import io.floe.core.segment.SegmentReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code floe debug segment}: verifies a segment's footer with {@link SegmentReader}, then prints
 * the footer and one line per batch with its Kafka CRC checked. Exit code 0 when the segment and
 * every batch are intact, 1 when the object is not a segment or a batch is damaged, 2 for bad usage.
 */
@Command(
        name = "segment",
        sortOptions = false,
        description = {
            "Verifies a segment object and prints its footer (version, batch count) and one line per record"
                    + " batch: topic id, partition, byte range, records, producer id/epoch/base sequence, max"
                    + " timestamp, and whether the batch's CRC matches.",
            "Reads a local file, or with --objects the object KEY in an object store."
        })
final class SegmentCommand implements Callable<Integer> {

    /** A finished segment is one heap buffer, so no segment is larger (SegmentLayout's limit). */
    private static final long SEGMENT_BYTES_MAX = Integer.MAX_VALUE - 8;
    /** What {@link SegmentReader#readFooter(ByteBuffer)} calls the buffer; replaced by the real name. */
    private static final String READER_NAME = "segment buffer ";

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "FILE|KEY", description = "A segment file, or with --objects an object key.")
    private String target;

    @Option(
            names = "--objects",
            paramLabel = "URL",
            description = "Object store to read KEY from: file:DIR or s3://BUCKET/PREFIX.")
    private String objectsUrl;

    private final S3Flags s3 = new S3Flags();

    @Mixin(name = "s3")
    private CommandSpec s3Options = s3.mixin();

    /** The bytes of the object to check, and its name for messages. */
    private record Segment(String name, ByteBuffer bytes) {}

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Segment segment;
        try {
            segment = objectsUrl == null ? readFile(Path.of(target)) : readObject();
        } catch (IllegalArgumentException e) {
            err.println("floe debug segment: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        } catch (IOException | ObjectStoreException e) {
            err.println("floe debug segment: " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        }
        SegmentFooter footer;
        try {
            footer = SegmentReader.readFooter(segment.bytes());
        } catch (SegmentFormatException e) {
            // The reader names the buffer it was given; the operator knows the file or key.
            String problem = e.getMessage().startsWith(READER_NAME)
                    ? segment.name() + " " + e.getMessage().substring(READER_NAME.length())
                    : e.getMessage();
            err.println("floe debug segment: not a valid Floe segment: " + problem);
            return CommandLine.ExitCode.SOFTWARE;
        }
        int damaged = print(out, segment, footer);
        out.flush();
        if (damaged > 0) {
            err.println("floe debug segment: " + damaged + " of "
                    + footer.batches().size() + " batches in " + segment.name() + " fail their CRC check");
            return CommandLine.ExitCode.SOFTWARE;
        }
        return CommandLine.ExitCode.OK;
    }

    /** Prints the footer and the batches; returns how many batches are damaged. */
    private static int print(PrintWriter out, Segment segment, SegmentFooter footer) {
        out.println("segment " + segment.name() + " bytes=" + segment.bytes().remaining() + " version="
                + footer.version() + " batches=" + footer.batches().size());
        int damaged = 0;
        for (int i = 0; i < footer.batches().size(); i++) {
            SegmentBatch batch = footer.batches().get(i);
            boolean intact = StoredBatch.isIntact(slice(segment.bytes(), batch));
            damaged += intact ? 0 : 1;
            out.println(line(i, batch, intact));
        }
        return damaged;
    }

    static String line(int index, SegmentBatch batch, boolean intact) {
        return "batch " + index
                + " topic-id=" + batch.topicId()
                + " partition=" + batch.partition()
                + " range=[" + batch.range().position() + "," + batch.range().end() + ")"
                + " bytes=" + batch.range().length()
                + " records=" + batch.recordCount()
                + " producer-id=" + batch.producerId()
                + " producer-epoch=" + batch.producerEpoch()
                + " base-sequence=" + batch.baseSequence()
                + " max-timestamp=" + batch.maxTimestamp() + timestamp(batch.maxTimestamp())
                + " crc=" + (intact ? "ok" : "BAD");
    }

    /** A readable form of a Kafka timestamp, which is -1 when there is none. */
    private static String timestamp(long millis) {
        return millis < 0 ? "" : " (" + Instant.ofEpochMilli(millis) + ")";
    }

    /** The batch's bytes; the reader has checked that its range lies inside the object. */
    private static ByteBuffer slice(ByteBuffer object, SegmentBatch batch) {
        int start = object.position() + (int) batch.range().position();
        return object.duplicate()
                .limit(start + batch.range().length())
                .position(start)
                .slice();
    }

    private static Segment readFile(Path file) throws IOException {
        if (Files.isDirectory(file)) {
            throw new IOException(file + " is a directory, not a segment file");
        }
        long size;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            size = channel.size();
            if (size <= SEGMENT_BYTES_MAX) {
                // The mapping stays valid after the channel closes.
                return new Segment(file.toString(), channel.map(FileChannel.MapMode.READ_ONLY, 0, size));
            }
        } catch (NoSuchFileException e) {
            throw new IOException("no file " + file, e);
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e, e);
        }
        throw new IOException(file + " has " + size + " bytes, more than any segment can (" + SEGMENT_BYTES_MAX + ")");
    }

    private Segment readObject() {
        ObjectKey key = new ObjectKey(target);
        try (ObjectStore store = Backends.existingObjectStore(
                objectsUrl, s3.options(), Concurrency.threads().clock())) {
            try {
                return new Segment(key + " in " + store.describe(), store.get(key));
            } catch (ObjectNotFoundException e) {
                throw new ObjectStoreException("no object " + key + " in " + store.describe(), false, e);
            }
        }
    }
}
