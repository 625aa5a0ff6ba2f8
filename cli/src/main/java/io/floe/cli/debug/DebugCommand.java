package io.floe.cli.debug;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code floe debug}: the parent of the debugging tools. */
@Command(
        name = "debug",
        description = "Inspects stored data: segment.",
        subcommands = {SegmentCommand.class})
public final class DebugCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** {@code floe debug} without a subcommand prints the usage and counts as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }
}
