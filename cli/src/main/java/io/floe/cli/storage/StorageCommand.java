package io.floe.cli.storage;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code floe storage}: the parent of the storage commands. */
@Command(
        name = "storage",
        description = "Reports on the stores: stats.",
        subcommands = {StatsCommand.class})
public final class StorageCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** {@code floe storage} without a subcommand prints the usage and counts as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }
}
