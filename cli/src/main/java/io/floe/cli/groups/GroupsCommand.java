package io.floe.cli.groups;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code floe groups}: the parent of the consumer group commands. */
@Command(
        name = "groups",
        description = "Manages consumer groups: list, describe, reset-offsets, delete.",
        subcommands = {
            ListGroupsCommand.class,
            DescribeGroupsCommand.class,
            ResetOffsetsCommand.class,
            DeleteGroupsCommand.class
        })
public final class GroupsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** {@code floe groups} without a subcommand prints the usage and counts as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }
}
