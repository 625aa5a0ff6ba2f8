package io.floe.cli.tables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.cli.AdminConnection;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code floe tables changes TOPIC --from POINT}: the changes of a topic's table between two points, as
 * an agent's HTTP endpoint answers them ({@code GET /tables/v1/{topic}/changes}): JSON lines on standard
 * output or in a file, or a Parquet file. A file appears only when the whole answer arrived. The range the
 * agent resolved goes to standard error, so the next run can start where this one ended.
 */
@Command(
        name = "changes",
        description = "Prints the changes of a topic's table between two points: the rows added (append), every"
                + " insert, update and delete in log order (full), or the net change per key (min); JSON lines, or"
                + " Parquet to a file.")
final class ChangesCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ERROR_LINE = "{\"error\":";

    @Spec
    private CommandSpec spec;

    @Mixin
    private AdminConnection connection;

    @Option(
            names = "--http",
            paramLabel = "HOST:PORT",
            description = "The agent's HTTP endpoint (its --http-listen). Default: the --bootstrap host, port "
                    + AgentHttp.DEFAULT_PORT + ".")
    private String http;

    @Option(
            names = "--from",
            required = true,
            paramLabel = "POINT",
            description = "Where the changes start: a snapshot id, a commit time (2026-01-02T03:04:05Z), offsets"
                    + " per partition (0:120,1:98) or earliest.")
    private String from;

    @Option(
            names = "--to",
            paramLabel = "POINT",
            defaultValue = "latest",
            description =
                    "Where they end, in the same forms, or latest (the current snapshot). Default: ${DEFAULT-VALUE}.")
    private String to;

    @Option(
            names = "--kind",
            paramLabel = "append|full|min",
            defaultValue = "full",
            description = "append: the rows added (an upsert table's inserts); full: every change with the row before"
                    + " and after; min: the net change per key. Default: ${DEFAULT-VALUE}.")
    private String kind;

    @Option(
            names = "--format",
            paramLabel = "json|parquet",
            defaultValue = "json",
            description = "JSON lines, or Parquet (needs --output). Default: ${DEFAULT-VALUE}.")
    private String format;

    @Option(
            names = "--output",
            paramLabel = "FILE",
            description = "Write to FILE (replaced only when the whole answer arrived) instead of standard output.")
    private Path output;

    @Parameters(paramLabel = "TOPIC", description = "The topic whose table to ask.")
    private String topic;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (connection.timeoutMs() < 1) {
            err.println("floe tables changes: invalid value '" + connection.timeoutMs() + "' for --timeout-ms");
            return CommandLine.ExitCode.USAGE;
        }
        boolean parquet = format.trim().equalsIgnoreCase("parquet");
        if (parquet && output == null) {
            err.println("floe tables changes: --format parquet writes a file; give --output FILE");
            return CommandLine.ExitCode.USAGE;
        }
        String endpoint = AgentHttp.endpoint(http, connection);
        URI uri = URI.create("http://" + endpoint + "/tables/v1/" + encode(topic) + "/changes?from=" + encode(from)
                + "&to=" + encode(to) + "&kind=" + encode(kind) + "&format=" + encode(format));
        Duration timeout = Duration.ofMillis(connection.timeoutMs());
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        HttpResponse<InputStream> response;
        try {
            // No limit on the answer: the agent sends its first bytes only once it has them, which for a min
            // delta of a long range is after the whole replay. --timeout-ms bounds the connection.
            response =
                    client.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpConnectTimeoutException | ConnectException e) {
            return failed("cannot reach the agent's HTTP endpoint at http://" + endpoint
                    + (http == null
                            ? " (the --bootstrap host and the default HTTP port " + AgentHttp.DEFAULT_PORT + ")"
                            : "")
                    + ": " + e + "; give the agent's --http-listen with --http HOST:PORT");
        } catch (IOException e) {
            return failed("cannot ask the agent at http://" + endpoint + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("interrupted");
        }
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                return failed(errorMessage(body.readAllBytes(), response.statusCode()));
            }
            String written =
                    parquet ? "wrote " + output + " (" + copyToFile(body) + " bytes)" : jsonLines(body) + " changes";
            err.println("floe tables changes: " + written + " of topic " + topic + " from offsets "
                    + header(response, "Floe-Changes-From") + " to "
                    + header(response, "Floe-Changes-To") + " (snapshot " + header(response, "Floe-Changes-Snapshot")
                    + ")");
            return CommandLine.ExitCode.OK;
        } catch (BrokenOff e) {
            return failed(e.getMessage());
        } catch (IOException e) {
            return failed("the agent's answer broke off: " + e);
        }
    }

    /** Copies JSON lines to the output file or standard output; returns how many. */
    private long jsonLines(InputStream body) throws IOException {
        if (output == null) {
            PrintWriter out = spec.commandLine().getOut();
            long count = jsonLines(body, out);
            out.flush();
            return count;
        }
        return intoOutput(file -> {
            Writer out = new BufferedWriter(new OutputStreamWriter(file, StandardCharsets.UTF_8));
            long count = jsonLines(body, out);
            out.flush();
            return count;
        });
    }

    /** Copies JSON lines to {@code out}; returns how many; a line that reports an error ends with it. */
    private static long jsonLines(InputStream body, Writer out) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        long count = 0;
        try {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith(ERROR_LINE)) {
                    throw new BrokenOff(errorMessage(line.getBytes(StandardCharsets.UTF_8), 500) + " (after " + count
                            + " changes)");
                }
                out.write(line);
                out.write('\n');
                count++;
            }
        } catch (BrokenOff e) {
            throw e;
        } catch (IOException e) {
            throw new BrokenOff("the agent's answer broke off after " + count + " changes: " + e);
        }
        return count;
    }

    /** Copies a Parquet answer into the output file, which appears only when it is whole; returns its bytes. */
    private long copyToFile(InputStream body) throws IOException {
        return intoOutput(file -> {
            try {
                return body.transferTo(file);
            } catch (IOException e) {
                throw new BrokenOff("the agent's answer broke off; " + output + " was not written: " + e);
            }
        });
    }

    /** What {@link #intoOutput} writes: returns what it counted. */
    @FunctionalInterface
    private interface Copy {
        long to(OutputStream file) throws IOException;
    }

    /**
     * Runs {@code copy} into a file beside the output, which replaces the output only when {@code copy}
     * returned: a failed answer leaves no file, nor a cut one.
     */
    private long intoOutput(Copy copy) throws IOException {
        Path temp = tempFile();
        try {
            long copied;
            try (OutputStream file = Files.newOutputStream(temp)) {
                copied = copy.to(file);
            }
            Files.move(temp, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            temp = null;
            return copied;
        } finally {
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
        }
    }

    private Path tempFile() throws IOException {
        Path dir = output.toAbsolutePath().getParent();
        return Files.createTempFile(dir, "." + output.getFileName(), ".part");
    }

    private int failed(String message) {
        spec.commandLine().getErr().println("floe tables changes: " + message);
        return CommandLine.ExitCode.SOFTWARE;
    }

    /** The message of an error answer ({@code {"error": {"message"}}}), or the body as it came. */
    private static String errorMessage(byte[] body, int status) {
        String text = new String(body, StandardCharsets.UTF_8).trim();
        try {
            JsonNode message = JSON.readTree(text).path("error").path("message");
            if (message.isTextual()) {
                return message.asText();
            }
        } catch (IOException notJson) {
            // fall through to the body as it came
        }
        return "the agent answered " + status + ": " + text;
    }

    private static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse("?");
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** An answer that ended early, with what to tell the user. */
    private static final class BrokenOff extends IOException {
        private static final long serialVersionUID = 1L;

        BrokenOff(String message) {
            super(message);
        }
    }
}
