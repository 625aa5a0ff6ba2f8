package io.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class FloeTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out));
        floe.setErr(new PrintWriter(err));
        return floe.execute(args);
    }

    @Test
    void helpListsEveryCommand() {
        assertThat(run("--help")).isZero();

        assertThat(out.toString()).contains("agent", "topics", "create, list, describe, delete");
    }

    @Test
    void topicsHelpListsItsCommands() {
        assertThat(run("topics", "--help")).isZero();

        assertThat(out.toString()).contains("create", "list", "describe", "delete");
    }

    @Test
    void versionNamesFloeAndJava() {
        assertThat(run("--version")).isZero();

        assertThat(out.toString()).startsWith("floe ").contains("Java ").doesNotContain("${project.version}");
    }

    @Test
    void noCommandIsAUsageError() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString()).contains("Usage: floe");
    }

    @Test
    void unknownOptionsAreUsageErrors() {
        assertThat(run("agent", "--flush-intervall-ms", "3")).isEqualTo(2);
        assertThat(err.toString()).contains("--flush-intervall-ms");
    }

    @Test
    void invalidTopicOptionsAreUsageErrors() {
        assertThat(run("topics", "create", "orders", "--partitions", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("invalid value '0' for --partitions");
    }
}
