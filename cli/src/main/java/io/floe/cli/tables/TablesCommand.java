package io.floe.cli.tables;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code floe tables}: the parent of the Tableflow commands. */
@Command(
        name = "tables",
        description =
                "Manages Tableflow: topics materialized as Iceberg tables (enable, disable, list, describe, changes).",
        subcommands = {
            EnableTableCommand.class,
            DisableTableCommand.class,
            ListTablesCommand.class,
            DescribeTableCommand.class,
            ChangesCommand.class
        })
public final class TablesCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }
}
