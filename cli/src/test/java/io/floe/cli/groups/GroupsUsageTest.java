package io.floe.cli.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code floe groups} usage: help, and the mistakes caught before connecting to anything. */
class GroupsUsageTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out));
        floe.setErr(new PrintWriter(err));
        return floe.execute(args);
    }

    @Test
    void helpListsTheGroupCommands() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("groups", "list, describe, reset-offsets, delete");

        assertThat(run("groups", "--help")).isZero();
        assertThat(out.toString()).contains("list", "describe", "reset-offsets", "delete");
    }

    @Test
    void groupsAloneIsAUsageError() {
        assertThat(run("groups")).isEqualTo(2);
        assertThat(err.toString()).contains("Usage: floe groups");
    }

    @Test
    void resetNeedsExactlyOneTarget() {
        assertThat(run("groups", "reset-offsets", "billing")).isEqualTo(2);
        assertThat(err.toString()).contains("--to-earliest");

        assertThat(run("groups", "reset-offsets", "billing", "--to-earliest", "--to-latest"))
                .isEqualTo(2);
        assertThat(run("groups", "reset-offsets", "billing", "--to-earliest", "--dry-run", "--execute"))
                .isEqualTo(2);
    }

    @Test
    void resetRefusesMalformedTimesAndPartitions() {
        assertThat(run("groups", "reset-offsets", "billing", "--to-datetime", "yesterday"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("invalid value 'yesterday' for --to-datetime");

        assertThat(run("groups", "reset-offsets", "billing", "--to-earliest", "--topic", "orders:x"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("invalid value 'orders:x' for --topic");
        assertThat(run("groups", "reset-offsets", "billing", "--to-earliest", "--topic", ":1"))
                .isEqualTo(2);
    }

    @Test
    void timesWithoutAZoneAreLocal() {
        assertThat(ResetOffsetsCommand.parseTime("2023-11-14T22:13:20Z").toEpochMilli())
                .isEqualTo(1_700_000_000_000L);
        assertThat(ResetOffsetsCommand.parseTime("2023-11-14T23:13:20.000+01:00")
                        .toEpochMilli())
                .isEqualTo(1_700_000_000_000L);
        assertThat(ResetOffsetsCommand.parseTime("2023-11-14T22:13:20"))
                .isEqualTo(java.time.LocalDateTime.of(2023, 11, 14, 22, 13, 20)
                        .atZone(java.time.ZoneId.systemDefault())
                        .toInstant());
    }
}
