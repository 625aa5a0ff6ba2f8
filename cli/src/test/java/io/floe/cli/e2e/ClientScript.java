package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;

/**
 * A Kafka client that is not kafka-clients, driven by a script in {@code src/test/resources/interop} run
 * as a child process. A script prints one JSON line on stdout (its last line) that the test asserts on;
 * its stdout and stderr go into every failure message.
 *
 * <p>A missing client fails the test with how to install it ({@code .ci/run} installs both). Only an
 * explicit {@code -Dfloe.interop.skip=librdkafka,kafkajs} (or {@code all}) skips, for machines without
 * them.
 */
enum ClientScript {
    /** confluent-kafka-python on librdkafka, as Debian packages them (python3-confluent-kafka). */
    LIBRDKAFKA("librdkafka", ".py") {
        @Override
        List<String> command(Path script) {
            return List.of(python(), script.toString());
        }

        @Override
        void environment(Map<String, String> environment) {
            environment.put("PYTHONDONTWRITEBYTECODE", "1");
        }

        @Override
        String missing() {
            ProcessResult check = ProcessResult.run(
                    List.of(python(), "-c", "import confluent_kafka"), this::environment, Duration.ofSeconds(30));
            if (check.exitCode() == 0) {
                return null;
            }
            return "confluent-kafka-python is not importable by " + python()
                    + ": apt-get install python3-confluent-kafka (.ci/run installs it), or set -Dfloe.interop.python;"
                    + " " + check.lastLine();
        }
    },
    /** KafkaJS, pinned in {@code interop/kafkajs/package-lock.json}. */
    KAFKAJS("kafkajs", ".js") {
        @Override
        List<String> command(Path script) {
            return List.of(node(), script.toString());
        }

        @Override
        void environment(Map<String, String> environment) {
            environment.put("NODE_PATH", kafkajsModules().toString());
        }

        @Override
        String missing() {
            if (!Files.isRegularFile(kafkajsModules().resolve("kafkajs").resolve("package.json"))) {
                return "KafkaJS is not installed in " + kafkajsModules()
                        + ": run npm ci --prefix interop/kafkajs (.ci/run does)";
            }
            ProcessResult check =
                    ProcessResult.run(List.of(node(), "--version"), this::environment, Duration.ofSeconds(30));
            return check.exitCode() == 0
                    ? null
                    : node() + " does not run: install Node.js 18 or later (.ci/run installs it), or set"
                            + " -Dfloe.interop.node; " + check.lastLine();
        }
    };

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String label;
    private final String extension;

    ClientScript(String label, String extension) {
        this.label = label;
        this.extension = extension;
    }

    abstract List<String> command(Path script);

    abstract void environment(Map<String, String> environment);

    /** Why the client cannot run here, with how to install it; null when it can. */
    abstract String missing();

    @Override
    public String toString() {
        return label;
    }

    /** Fails (or, when explicitly opted out, skips) unless the client is installed. */
    void requireInstalled() {
        List<String> skipped = Arrays.asList(System.getProperty("floe.interop.skip", "")
                .toLowerCase(Locale.ROOT)
                .split(","));
        Assumptions.assumeFalse(
                skipped.contains(label) || skipped.contains("all"), "skipped by -Dfloe.interop.skip=" + skipped);
        String missing = missing();
        if (missing != null) {
            fail(missing);
        }
    }

    /**
     * Runs {@code name} (a script under {@code interop/} without its extension) with {@code args};
     * fails unless it exits with 0 within {@code timeout}; answers its JSON summary with its output.
     */
    Run run(String name, Duration timeout, Object... args) {
        Path script = resource("/interop/" + name + extension);
        List<String> command = new ArrayList<>(command(script));
        Arrays.stream(args).map(String::valueOf).forEach(command::add);
        ProcessResult result = ProcessResult.run(command, this::environment, timeout);
        if (result.exitCode() != 0) {
            fail("%s exited with %s%n%s", command, result.exitCode() < 0 ? "a timeout" : result.exitCode(), result);
        }
        String last = result.stdout()
                .lines()
                .filter(line -> !line.isBlank())
                .reduce((first, second) -> second)
                .orElse("");
        JsonNode summary;
        try {
            summary = JSON.readTree(last);
        } catch (IOException e) {
            summary = null;
        }
        if (summary == null || !summary.isObject()) {
            fail("%s printed no JSON summary as its last line%n%s", command, result);
        }
        return new Run(summary, result);
    }

    /** A script's JSON summary, and all it printed (its {@code toString}, for assertion messages). */
    record Run(JsonNode summary, ProcessResult process) {
        @Override
        public String toString() {
            return process.toString();
        }
    }

    private static Path resource(String name) {
        URL url = ClientScript.class.getResource(name);
        if (url == null) {
            throw new IllegalStateException("no test resource " + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String python() {
        return System.getProperty("floe.interop.python", "/usr/bin/python3");
    }

    private static String node() {
        return System.getProperty("floe.interop.node", "node");
    }

    /** Tests run in the cli module's directory; the package directory is at the repository's top. */
    private static Path kafkajsModules() {
        return Path.of(System.getProperty("floe.interop.kafkajs", "../interop/kafkajs"))
                .toAbsolutePath()
                .normalize()
                .resolve("node_modules");
    }

    /** A finished (or timed out and killed: exit code -1) child process and its output. */
    record ProcessResult(int exitCode, String stdout, String stderr, Duration took) {

        static ProcessResult run(List<String> command, Consumer<Map<String, String>> env, Duration timeout) {
            long start = System.nanoTime();
            try {
                Path out = Files.createTempFile("floe-interop-", ".out");
                Path err = Files.createTempFile("floe-interop-", ".err");
                try {
                    ProcessBuilder builder = new ProcessBuilder(command)
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile())
                            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                    env.accept(builder.environment());
                    Process process = builder.start();
                    int exit;
                    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                        exit = process.exitValue();
                    } else {
                        process.destroyForcibly().waitFor();
                        exit = -1;
                    }
                    return new ProcessResult(
                            exit,
                            Files.readString(out, StandardCharsets.UTF_8),
                            Files.readString(err, StandardCharsets.UTF_8),
                            Duration.ofNanos(System.nanoTime() - start));
                } finally {
                    Files.deleteIfExists(out);
                    Files.deleteIfExists(err);
                }
            } catch (IOException e) {
                return new ProcessResult(127, "", "cannot run " + command + ": " + e, Duration.ZERO);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running " + command, e);
            }
        }

        /** The last line the process printed, for one-line messages. */
        String lastLine() {
            return (stdout + stderr)
                    .strip()
                    .lines()
                    .reduce((first, second) -> second)
                    .orElse("");
        }

        @Override
        public String toString() {
            return "took " + took.toMillis() + " ms; stdout:\n" + abbreviate(stdout) + "\nstderr:\n"
                    + abbreviate(stderr);
        }

        private static String abbreviate(String text) {
            return text.length() <= 20_000
                    ? text
                    : text.substring(0, 10_000) + "\n[...]\n" + text.substring(text.length() - 10_000);
        }
    }
}
