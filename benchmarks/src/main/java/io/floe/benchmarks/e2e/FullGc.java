package io.floe.benchmarks.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forces a stop-the-world full GC in a running JVM with the JDK's {@code jcmd}, so that the used heap read right
 * after it is the live heap. The command is {@code GC.class_histogram}, not {@code GC.run}: both systems run G1 with
 * {@code -XX:+ExplicitGCInvokesConcurrent} (Kafka's start scripts, and bin/floe after them), under which
 * {@code GC.run} only starts a concurrent cycle ("Pause Young (Concurrent Start) (Diagnostic Command)") that leaves
 * the garbage of partly live old regions in place, while a class histogram is always taken right after a full GC
 * ("Pause Full (Heap Inspection Initiated GC)"), whatever the GC flags. The histogram is kept in a file: it shows
 * what the live heap holds.
 */
final class FullGc {

    private static final Logger LOGGER = LoggerFactory.getLogger(FullGc.class);
    /** A full GC of a 1 GiB heap takes well under a second; the rest is jcmd's own JVM starting and attaching. */
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private static final Path JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd");

    private FullGc() {}

    /**
     * Runs the full GC in JVM {@code pid}, waits for jcmd to exit, and returns the bytes of the objects the GC left
     * (the histogram's total). Throws when jcmd fails or gives no histogram.
     */
    static long run(String label, long pid, Path histogramFile) throws InterruptedException {
        ChildProcess jcmd = ChildProcess.start(
                "jcmd " + label,
                List.of(JCMD.toString(), Long.toString(pid), "GC.class_histogram"),
                histogramFile,
                Map.of());
        int exit = jcmd.awaitExit(TIMEOUT);
        List<String> output = jcmd.logLines();
        OptionalLong objectsBytes = exit == 0 ? histogramTotalBytes(output) : OptionalLong.empty();
        if (objectsBytes.isEmpty()) {
            String reason = output.stream()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.equals(pid + ":"))
                    .findFirst()
                    .orElse("(no output)");
            throw new IllegalStateException(
                    "jcmd " + pid + " GC.class_histogram exited " + exit + " without a histogram: " + reason);
        }
        LOGGER.info(
                "full GC system={} pid={} objectsBytes={} histogram={}",
                label,
                pid,
                objectsBytes.getAsLong(),
                histogramFile);
        return objectsBytes.getAsLong();
    }

    /**
     * The bytes on a class histogram's {@code Total} line ({@code Total <instances> <bytes>}): the summed sizes of
     * all objects counted. Empty when there is no such line, as when jcmd could not attach.
     */
    static OptionalLong histogramTotalBytes(List<String> lines) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            String[] fields = lines.get(i).strip().split("\\s+");
            if (fields.length == 3 && fields[0].equals("Total")) {
                return OptionalLong.of(Long.parseLong(fields[2]));
            }
        }
        return OptionalLong.empty();
    }
}
